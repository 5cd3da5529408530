//go:build linux

package kpcbench

import (
	"sync"
	"testing"
)

// touchPagesIn runs ops operations of touchPages(pages) spread over workers goroutines and
// waits for them, as b.RunParallel does.
func touchPagesIn(t *testing.T, workers, ops, pages int) {
	var wg sync.WaitGroup
	next := make(chan struct{}, ops)
	for i := 0; i < ops; i++ {
		next <- struct{}{}
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				touchPages(t, pages)
			}
		}()
	}
	wg.Wait()
}

// A RunParallel benchmark whose goroutines each touch pages fresh pages per operation.
func TestOpenProcessRunParallel(t *testing.T) {
	const pages = 32
	r := testing.Benchmark(func(b *testing.B) {
		OpenProcess(b, "page-faults", "task-clock")
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				touchPages(b, pages)
			}
		})
	})
	checkPageFaults(t, r, pages)
	if r.Extra["task-clock/op"] <= 0 {
		t.Errorf("task-clock/op = %v, want > 0", r.Extra["task-clock/op"])
	}
	t.Logf("N=%d: %v", r.N, r.Extra)
}

// The same work on other goroutines, measured by Open and OpenProcess side by side: Open
// sees only its own thread, OpenProcess all of it.
func TestOpenProcessCountsOtherGoroutines(t *testing.T) {
	const pages, ops = 64, 20
	thread, process := newFake(t), newFake(t)
	open(thread, func() int { return ops }, Options{}, []string{"page-faults"})
	openProcess(process, func() int { return ops }, []string{"page-faults"})
	touchPagesIn(t, 2, ops, pages)
	process.finish()
	thread.finish()
	inRange(t, "OpenProcess: page-faults/op", process.metrics["page-faults/op"], pages)
	if got := thread.metrics["page-faults/op"]; got > pages/4 {
		t.Errorf("Open: page-faults/op = %.2f, want well below %d (other goroutines are not its thread)", got, pages)
	}
	if process.resets != 1 || len(process.logs) != 0 {
		t.Errorf("OpenProcess: %d timer resets, logs %q; want 1 reset and no logs", process.resets, process.logs)
	}
	t.Logf("page-faults/op: Open %.2f, OpenProcess %.2f (%d pages/op)",
		thread.metrics["page-faults/op"], process.metrics["page-faults/op"], pages)
}

// Neither the setup before OpenProcess nor what happens until its first read (here the
// timer reset, which really stops the world) is counted.
func TestOpenProcessSetupNotCounted(t *testing.T) {
	f := newFake(t)
	f.onReset = func() { touchPagesIn(t, 2, 5, 100) }
	touchPagesIn(t, 2, 10, 100) // setup, before OpenProcess
	openProcess(f, func() int { return 1 }, []string{"page-faults"})
	touchPagesIn(t, 2, 1, 100)
	f.finish()
	inRange(t, "page-faults/op with 1000 pages of setup and 500 in ResetTimer", f.metrics["page-faults/op"], 100)
}

func TestOpenProcessSkipsUnavailable(t *testing.T) {
	checkSkipsUnavailable(t, func(f *fakeBench, events []string) {
		openProcess(f, func() int { return 1 }, events)
	})
}

func TestOpenProcessNothingCountable(t *testing.T) {
	f := newFake(t)
	openProcess(f, func() int { return 1 }, []string{"no-such-event"})
	f.finish()
	if len(f.metrics) != 0 || f.resets != 0 || !f.logged(`not counting "no-such-event"`) {
		t.Errorf("metrics %v, %d resets, logs %q; want none and the event logged", f.metrics, f.resets, f.logs)
	}
	f = newFake(t)
	openProcess(f, func() int { return 1 }, nil)
	f.finish()
	if len(f.metrics) != 0 || !f.logged("no events given") {
		t.Errorf("no events: metrics %v, logs %q", f.metrics, f.logs)
	}
}
