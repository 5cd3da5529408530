package kpcbench

import (
	"testing"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

// OpenProcess starts counting events in the whole process, every goroutine on whichever OS
// thread it runs, so it suits b.RunParallel and benchmarks that start goroutines of their
// own; see the package documentation. Call it once per benchmark function, after the setup
// and before the loop (or b.RunParallel).
//
// It also counts everything else the process does meanwhile: the Go runtime's garbage
// collector and other background threads, and any other goroutine still running. Read its
// figures as an upper bound on the benchmark's own work.
func OpenProcess(b *testing.B, events ...string) {
	b.Helper()
	openProcess(b, func() int { return b.N }, events)
}

func openProcess(b bench, n func() int, events []string) {
	b.Helper()
	s := samplerFor(b, "OpenProcess", events)
	if s == nil {
		return
	}
	// CountProcess counts from the moment it returns; the first read below is the baseline,
	// so everything before it (the setup, opening the counters) is left out.
	p, names := openCountable(b, events, s.CountProcess)
	if names == nil {
		return
	}
	b.Cleanup(func() { p.Close() })
	for i, sc := range p.Scopes() {
		if sc == kpc.ScopeSystem {
			logOnce(b, "kpcbench: %q counts every CPU of the machine here (scope %v), not only this process", names[i], sc)
		}
	}
	// Reset the timer before the first read, as Open does: ResetTimer stops the world.
	b.ResetTimer()
	before, err := p.ReadFull()
	if err != nil {
		logOnce(b, "kpcbench: counting nothing, kpc.Process.ReadFull failed: %v", err)
		return
	}
	b.Cleanup(func() {
		after, err := p.ReadFull()
		if err != nil {
			logOnce(b, "kpcbench: no counts reported, kpc.Process.ReadFull failed: %v", err)
			return
		}
		for i, name := range names {
			if !after.Complete[i] {
				logOnce(b, "kpcbench: %q was multiplexed (on a counter %v of %v); its count is low: count fewer events at a time",
					name, after.TimeRunning[i]-before.TimeRunning[i], after.TimeEnabled[i]-before.TimeEnabled[i])
			}
		}
		for i, v := range perOp(before.Values, after.Values, nil, n()) {
			b.ReportMetric(v, unit(names[i]))
		}
	})
}
