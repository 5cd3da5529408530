// Package kpcbench reports libkpc counters per operation from Go benchmarks (testing.B).
//
//	func BenchmarkParse(b *testing.B) {
//		in := makeInput()                             // setup: not counted
//		kpcbench.Open(b, "page-faults", "task-clock") // counting starts here
//		for i := 0; i < b.N; i++ {
//			parse(in)
//		}
//	}                                                 // reports page-faults/op, task-clock/op
//
// Open locks the benchmark's goroutine to its OS thread, starts the counters on that
// thread and resets the benchmark timer, so the time and the counts cover the same code.
// When the benchmark function returns (b.Cleanup), it samples again and reports each
// event's difference divided by b.N through b.ReportMetric as "<event>/op", then closes
// the counters and unlocks the thread.
//
// What is counted: only the OS thread of the goroutine that called Open, from Open until
// the benchmark function returns. Not counted: setup before Open (b.ResetTimer does not
// reset the counters, so call Open after the setup); other goroutines, including those
// the benchmark starts and the goroutines of b.RunParallel, which run on other threads;
// the Go runtime's own threads (the garbage collector's background workers, for one);
// OpenProcess, below, counts those. Counted although not the benchmark's: testing's
// bookkeeping between the function's return and the cleanups (b.StopTimer reads the memory
// statistics, some 10-20 µs of task-clock per run here) and half of each of the two
// samples; b.N divides them, so they vanish at the default -benchtime but show with
// -benchtime 1x.
// OpenWith(b, Options{SubtractOverhead: true}, ...) subtracts the samples' share
// (Counters.Calibrate) before dividing.
//
// OpenProcess(b, events...) counts the whole process instead (kpc.Sampler.CountProcess):
// every goroutine, on whichever OS thread it runs, including threads created meanwhile, so
// it suits b.RunParallel and benchmarks that start goroutines. It resets the timer and
// reports "<event>/op" as Open does, and setup before it is not counted (its first read is
// the baseline). It locks no thread and has no options. The price: it also counts
// everything else the process does meanwhile, the Go runtime's garbage collector and
// scheduler and any other goroutine still running (one left behind by an earlier test,
// say), so read its figures as an upper bound on the benchmark's own work. On Linux each
// thread of the process costs a file descriptor per event, and a thread the runtime creates
// while the counters are being attached may be missed (libkpc's limit, as for perf stat
// -p). On Apple's kperf backend a process count covers every CPU of the machine
// (kpc.ScopeSystem; OpenProcess logs that); the recount backend reads the process's own
// totals (kpc.ScopeProcess).
//
// An event that cannot be counted here (unknown, or no hardware PMU, as in most virtual
// machines) is logged with libkpc's reason (b.Logf) and skipped: the benchmark still runs
// and reports the other events. The counters come from one Sampler per process, opened on
// first use with the default backend ($KPC_BACKEND, else the platform's own).
package kpcbench

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

// Open starts counting events on the calling benchmark's goroutine; see the package
// documentation. Call it once per benchmark function, after the setup and before the loop.
func Open(b *testing.B, events ...string) {
	b.Helper()
	open(b, func() int { return b.N }, Options{}, events)
}

// Options change what OpenWith measures; the zero value measures what Open does.
type Options struct {
	// SubtractOverhead subtracts, from each event's count, what an empty measured region
	// costs it before dividing by b.N: Counters.Calibrate (kp_thread_calibrate) measures that
	// once per run of the benchmark function, after the counters start and before the timer
	// is reset, and the difference is clamped at 0. The two samples are then not counted.
	// It matters when b.N is small (-benchtime 1x) and on Apple, where each read adds the
	// kernel's work to the fixed counters; at the default -benchtime, b.N makes it
	// negligible either way.
	SubtractOverhead bool
}

// OpenWith is Open with options:
//
//	kpcbench.OpenWith(b, kpcbench.Options{SubtractOverhead: true}, "instructions")
func OpenWith(b *testing.B, opts Options, events ...string) {
	b.Helper()
	open(b, func() int { return b.N }, opts, events)
}

// bench is what Open uses of *testing.B (a fake in the tests).
type bench interface {
	Helper()
	Name() string
	Logf(format string, args ...any)
	Cleanup(func())
	ReportMetric(n float64, unit string)
	ResetTimer()
}

// logged holds the messages already logged per benchmark: testing runs a benchmark
// function several times (growing b.N) and prints the logs of every run, so each reason
// is logged once.
var logged sync.Map

func logOnce(b bench, format string, args ...any) {
	b.Helper()
	msg := fmt.Sprintf(format, args...)
	if _, seen := logged.LoadOrStore(b.Name()+"\x00"+msg, true); !seen {
		b.Logf("%s", msg)
	}
}

var (
	samplerOnce sync.Once
	sampler     *kpc.Sampler
	samplerErr  error
)

// processSampler opens the process's Sampler on first use; it stays open until the process
// exits (on Apple only one sampler may hold the counters).
func processSampler() (*kpc.Sampler, error) {
	samplerOnce.Do(func() { sampler, samplerErr = kpc.NewSampler(nil) })
	return sampler, samplerErr
}

// samplerFor returns the process's Sampler for the entry point fn (Open, OpenProcess), or
// logs why nothing will be counted and returns nil.
func samplerFor(b bench, fn string, events []string) *kpc.Sampler {
	b.Helper()
	if len(events) == 0 {
		logOnce(b, "kpcbench.%s: no events given, nothing counted; name some, e.g. kpcbench.%s(b, \"task-clock\")", fn, fn)
		return nil
	}
	s, err := processSampler()
	if err != nil {
		logOnce(b, "kpcbench: counting nothing, libkpc could not start: %v", err)
		return nil
	}
	return s
}

func open(b bench, n func() int, opts Options, events []string) {
	b.Helper()
	s := samplerFor(b, "Open", events)
	if s == nil {
		return
	}
	runtime.LockOSThread()
	b.Cleanup(runtime.UnlockOSThread) // runs last: cleanups run in reverse order
	c, names := newCounters(b, s, events)
	if c == nil {
		return
	}
	b.Cleanup(func() { c.Close() })
	if err := c.Start(); err != nil {
		logOnce(b, "kpcbench: counting nothing, kpc.Counters.Start failed: %v", err)
		return
	}
	var offsets []uint64
	if opts.SubtractOverhead {
		var err error
		if offsets, err = c.Calibrate(0); err != nil {
			logOnce(b, "kpcbench: counting nothing, kpc.Counters.Calibrate failed: %v", err)
			return
		}
	}
	// Reset the timer before the first sample, not after: ResetTimer reads the memory
	// statistics (it stops the world), which would otherwise be counted.
	b.ResetTimer()
	before, err := c.Sample(nil)
	if err != nil {
		logOnce(b, "kpcbench: counting nothing, kpc.Counters.Sample failed: %v", err)
		return
	}
	after := make([]uint64, 0, len(before))
	b.Cleanup(func() {
		after, err := c.Sample(after)
		if err != nil {
			logOnce(b, "kpcbench: no counts reported, kpc.Counters.Sample failed: %v", err)
			return
		}
		for i, v := range perOp(before, after, offsets, n()) {
			b.ReportMetric(v, unit(names[i]))
		}
	})
}

// perOp is each event's after-before, less its offset (none when offsets is nil; never
// below 0), divided by ops (at least 1).
func perOp(before, after, offsets []uint64, ops int) []float64 {
	if ops < 1 {
		ops = 1
	}
	out := make([]float64, len(before))
	for i := range before {
		d := after[i] - before[i]
		if offsets != nil {
			if d > offsets[i] {
				d -= offsets[i]
			} else {
				d = 0
			}
		}
		out[i] = float64(d) / float64(ops)
	}
	return out
}

// newCounters opens the events on the calling thread, dropping (and logging) those that
// cannot be counted here. It returns nil when none is left. names are the events counted,
// in the order of the Counters' values.
func newCounters(b bench, s *kpc.Sampler, events []string) (*kpc.Counters, []string) {
	b.Helper()
	return openCountable(b, events, s.NewCounters)
}

// openCountable opens the events with newSet, dropping (and logging) those that cannot be
// counted here. It returns the zero T when none is left; names are the events counted, in
// the order of the set's values.
func openCountable[T interface{ Close() error }](b bench, events []string,
	newSet func(...string) (T, error)) (set T, names []string) {
	b.Helper()
	set, err := newSet(events...)
	if err == nil {
		return set, events
	}
	// Find out which events fail on their own; log those and retry with the rest.
	var ok []string
	for _, e := range events {
		one, err := newSet(e)
		if err != nil {
			logOnce(b, "kpcbench: not counting %q: %v", e, err)
			continue
		}
		one.Close()
		ok = append(ok, e)
	}
	if len(ok) == 0 {
		return set, nil
	}
	set, err = newSet(ok...)
	if err != nil {
		what := "together"
		if errors.Is(err, kpc.ErrConflict) {
			what = "together (too many for the hardware counters: count fewer at a time)"
		}
		logOnce(b, "kpcbench: counting nothing, events %q cannot be counted %s: %v", ok, what, err)
		return set, nil
	}
	return set, ok
}

// unit is the metric name of an event: "<event>/op", whitespace replaced by '_' (which
// ReportMetric does not accept).
func unit(event string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, event) + "/op"
}
