//go:build linux

package kpc_test

import (
	"testing"
	"time"
)

func TestCountingPageFaults(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "page-faults", "minor-faults")
	const pages = 256
	before := sample(t, c)
	touchPages(t, pages)
	after := sample(t, c)
	for i, name := range []string{"page-faults", "minor-faults"} {
		if d := after[i] - before[i]; after[i] < before[i] || d < pages {
			t.Errorf("%s grew by %d (from %d to %d) after touching %d fresh pages, want >= %d",
				name, int64(after[i])-int64(before[i]), before[i], after[i], pages, pages)
		}
	}
}

func TestCountingTaskClock(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "task-clock")
	before := sample(t, c)
	burnCPU(t, 50*time.Millisecond)
	after := sample(t, c)
	if d := time.Duration(after[0] - before[0]); after[0] < before[0] || d < 40*time.Millisecond {
		t.Errorf("task-clock grew by %v over 50 ms of this thread's CPU time, want >= 40 ms", d)
	}
}

func TestCountingTotalsNeverDecrease(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "task-clock", "page-faults", "context-switches")
	prev := sample(t, c)
	buf := make([]uint64, 0, c.Len())
	for i := 0; i < 200; i++ {
		if i%20 == 0 {
			touchPages(t, 4)
			time.Sleep(time.Millisecond) // a context switch
		}
		var err error
		buf, err = c.Sample(buf[:0])
		if err != nil {
			t.Fatalf("Sample #%d: %v", i, err)
		}
		for j := range buf {
			if buf[j] < prev[j] {
				t.Fatalf("sample #%d: event %d went down from %d to %d", i, j, prev[j], buf[j])
			}
		}
		copy(prev, buf)
	}
	if prev[1] == 0 {
		t.Errorf("page-faults stayed 0 over the loop")
	}
}

// Stop pauses the totals; Start resumes them.
func TestCountingStopAndResume(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "page-faults")
	if !c.IsRunning() {
		t.Fatal("IsRunning() = false after Start")
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if c.IsRunning() {
		t.Fatal("IsRunning() = true after Stop")
	}
	paused := sample(t, c)
	touchPages(t, 64)
	still := sample(t, c)
	if still[0] != paused[0] {
		t.Errorf("page-faults moved from %d to %d while stopped", paused[0], still[0])
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	touchPages(t, 64)
	resumed := sample(t, c)
	if resumed[0]-still[0] < 64 {
		t.Errorf("page-faults grew by %d after resuming, want >= 64", resumed[0]-still[0])
	}
}

// Sample appends like strconv.Append*: it keeps dst's contents, and with enough capacity
// it allocates nothing.
func TestCountingSampleAppendsWithoutAllocating(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "task-clock", "page-faults")

	got, err := c.Sample([]uint64{42})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != 42 || got[1] == 0 {
		t.Fatalf("Sample([42]) = %v, want [42 <task-clock> <page-faults>]", got)
	}

	buf := make([]uint64, 0, 8)
	orig := &buf[:1][0]
	allocs := testing.AllocsPerRun(200, func() {
		var err error
		buf, err = c.Sample(buf[:0])
		if err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Sample into a buffer with capacity allocated %.1f times per call", allocs)
	}
	if len(buf) != 2 || &buf[0] != orig {
		t.Errorf("Sample did not reuse the buffer: len %d, same array %v", len(buf), len(buf) > 0 && &buf[0] == orig)
	}
}

func TestCountingSampleFull(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "task-clock", "page-faults")
	touchPages(t, 8)
	fs, err := c.SampleFull()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Values) != 2 || len(fs.Complete) != 2 {
		t.Fatalf("SampleFull = %+v", fs)
	}
	if fs.Values[1] < 8 {
		t.Errorf("page-faults %d after touching 8 pages", fs.Values[1])
	}
	for i, ok := range fs.Complete {
		if !ok {
			t.Errorf("software event %d reported as multiplexed", i)
		}
	}
	if fs.TimeRunning > fs.TimeEnabled {
		t.Errorf("running %v > enabled %v", fs.TimeRunning, fs.TimeEnabled)
	}
	if later := sample(t, c); later[1] < fs.Values[1] {
		t.Errorf("Sample after SampleFull went down: %d < %d", later[1], fs.Values[1])
	}
}
