//go:build linux

package kpcbench

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

// fakeBench records what open does with a *testing.B.
type fakeBench struct {
	t        *testing.T
	logs     []string
	cleanups []func()
	metrics  map[string]float64
	resets   int
	onReset  func() // work ResetTimer does, if any
}

func newFake(t *testing.T) *fakeBench {
	return &fakeBench{t: t, metrics: map[string]float64{}}
}

func (f *fakeBench) Helper()      {}
func (f *fakeBench) Name() string { return f.t.Name() }
func (f *fakeBench) ResetTimer() {
	f.resets++
	if f.onReset != nil {
		f.onReset()
	}
}
func (f *fakeBench) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *fakeBench) Cleanup(fn func())                   { f.cleanups = append(f.cleanups, fn) }
func (f *fakeBench) ReportMetric(v float64, unit string) { f.metrics[unit] = v }

// finish runs the cleanups as testing does when the benchmark function returns.
func (f *fakeBench) finish() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	f.cleanups = nil
}

func (f *fakeBench) logged(sub string) bool {
	for _, l := range f.logs {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// touchPages maps n fresh pages and writes one byte to each: n page faults on this thread.
func touchPages(t testing.TB, n int) {
	size := n * os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	for p := 0; p < size; p += os.Getpagesize() {
		mem[p] = 1
	}
	if err := syscall.Munmap(mem); err != nil {
		t.Fatalf("munmap: %v", err)
	}
}

// inRange fails unless got is within ±20 % of want.
func inRange(t *testing.T, what string, got, want float64) {
	t.Helper()
	if got < 0.8*want || got > 1.2*want {
		t.Errorf("%s = %.2f, want %.0f ± 20 %%", what, got, want)
	}
}

func TestOpenReportsPerOp(t *testing.T) {
	const pages = 32
	r := testing.Benchmark(func(b *testing.B) {
		Open(b, "page-faults", "task-clock")
		for i := 0; i < b.N; i++ {
			touchPages(b, pages)
		}
	})
	checkPageFaults(t, r, pages)
	if ns := r.Extra["task-clock/op"]; ns <= 0 || ns > float64(r.T.Nanoseconds())/float64(r.N)*1.5 {
		t.Errorf("task-clock/op = %.0f ns, want > 0 and about the %d ns/op the benchmark took",
			ns, r.NsPerOp())
	}
	t.Logf("N=%d: %v", r.N, r.Extra)
}

// checkPageFaults checks that the benchmark r ran and reported exactly page-faults/op and
// task-clock/op, page-faults/op within 20 % of pages.
func checkPageFaults(t *testing.T, r testing.BenchmarkResult, pages int) {
	t.Helper()
	if r.N < 1 {
		t.Fatalf("the benchmark did not run (N = %d); see its log", r.N)
	}
	if len(r.Extra) != 2 {
		t.Errorf("metrics %v, want exactly page-faults/op and task-clock/op", r.Extra)
	}
	inRange(t, "page-faults/op", r.Extra["page-faults/op"], float64(pages))
}

func TestOpenDividesByN(t *testing.T) {
	const pages, n = 8, 25
	f := newFake(t)
	open(f, func() int { return n }, Options{}, []string{"page-faults"})
	for i := 0; i < n; i++ {
		touchPages(t, pages)
	}
	f.finish()
	inRange(t, "page-faults/op", f.metrics["page-faults/op"], pages)
}

func TestOpenSetupNotCounted(t *testing.T) {
	f := newFake(t)
	touchPages(t, 1000) // setup, before Open
	open(f, func() int { return 1 }, Options{}, []string{"page-faults"})
	touchPages(t, 10)
	f.finish()
	inRange(t, "page-faults/op with 1000 pages of setup before Open", f.metrics["page-faults/op"], 10)
}

func TestOpenSkipsUnavailable(t *testing.T) {
	checkSkipsUnavailable(t, func(f *fakeBench, events []string) {
		open(f, func() int { return 1 }, Options{}, events)
	})
}

// checkSkipsUnavailable has start (open or openProcess) count an unknown event, cycles and
// task-clock, and checks that the unknown event and an unavailable cycles are logged with
// libkpc's reason and skipped while task-clock is reported.
func checkSkipsUnavailable(t *testing.T, start func(f *fakeBench, events []string)) {
	t.Helper()
	s, err := processSampler()
	if err != nil {
		t.Fatal(err)
	}
	cycles, err := s.FindEvent("cycles")
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t)
	start(f, []string{"no-such-event", "cycles", "task-clock"})
	f.finish()
	if !f.logged(`not counting "no-such-event": `) || !f.logged(kpc.ErrUnknownEvent.Error()) {
		t.Errorf("the unknown event is not logged with a reason: %q", f.logs)
	}
	if _, ok := f.metrics["task-clock/op"]; !ok {
		t.Errorf("task-clock was not reported next to the failing events: %v, logs %q", f.metrics, f.logs)
	}
	if cycles.Available {
		if _, ok := f.metrics["cycles/op"]; !ok {
			t.Errorf("cycles is available here but not reported: %v, logs %q", f.metrics, f.logs)
		}
	} else {
		if _, ok := f.metrics["cycles/op"]; ok {
			t.Errorf("cycles is unavailable here (%s) but reported: %v", cycles.UnavailableReason, f.metrics)
		}
		if !f.logged(`not counting "cycles": `) || !f.logged(kpc.ErrUnavailable.Error()) {
			t.Errorf("unavailable cycles is not logged with libkpc's reason: %q", f.logs)
		}
	}
	t.Logf("logged: %q", f.logs)
}

// testing runs a benchmark function once per b.N it tries; a reason is logged only once.
func TestOpenLogsOnce(t *testing.T) {
	f := newFake(t)
	for run := 0; run < 3; run++ {
		open(f, func() int { return 1 }, Options{}, []string{"no-such-event", "task-clock"})
		f.finish()
	}
	if len(f.logs) != 1 || f.resets != 3 {
		t.Errorf("3 runs: %d log lines %q and %d timer resets, want 1 line and 3 resets",
			len(f.logs), f.logs, f.resets)
	}
}

func TestOpenNothingCountable(t *testing.T) {
	f := newFake(t)
	open(f, func() int { return 1 }, Options{}, []string{"no-such-event"})
	f.finish()
	if len(f.metrics) != 0 || !f.logged(`not counting "no-such-event"`) {
		t.Errorf("metrics %v, logs %q; want none and the event logged", f.metrics, f.logs)
	}
	f = newFake(t)
	open(f, func() int { return 1 }, Options{}, nil)
	f.finish()
	if len(f.metrics) != 0 || !f.logged("no events given") {
		t.Errorf("no events: metrics %v, logs %q", f.metrics, f.logs)
	}
}

// The thread is locked from Open until the cleanups ran, and unlocked afterwards.
func TestOpenLocksThread(t *testing.T) {
	f := newFake(t)
	open(f, func() int { return 1 }, Options{}, []string{"task-clock"})
	// Counting methods fail with ErrWrongThread off the thread; a locked goroutine never
	// moves, which the cleanup's successful Sample shows.
	for i := 0; i < 100; i++ {
		runtime.Gosched()
	}
	f.finish()
	if _, ok := f.metrics["task-clock/op"]; !ok {
		t.Errorf("task-clock not reported after the goroutine yielded: logs %q", f.logs)
	}
}

func TestOpenMetricNames(t *testing.T) {
	for in, want := range map[string]string{
		"page-faults": "page-faults/op",
		"INST_ALL":    "INST_ALL/op",
		"a b\tc":      "a_b_c/op",
	} {
		if got := unit(in); got != want {
			t.Errorf("unit(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOpenPerOpArithmetic(t *testing.T) {
	before := []uint64{100, 50, 7}
	after := []uint64{1100, 60, 7}
	got := perOp(before, after, nil, 4)
	want := []float64{250, 2.5, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("no offsets: perOp = %v, want %v", got, want)
		}
	}
	// Offsets come off the whole region's difference, never below 0; ops < 1 counts as 1.
	got = perOp(before, after, []uint64{200, 20, 3}, 0)
	want = []float64{800, 0, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("offsets {200, 20, 3}, ops 0: perOp = %v, want %v", got, want)
		}
	}
}

func TestOpenSubtractOverheadKeepsRealCounts(t *testing.T) {
	const pages, n = 8, 25
	f := newFake(t)
	open(f, func() int { return n }, Options{SubtractOverhead: true}, []string{"page-faults", "task-clock"})
	for i := 0; i < n; i++ {
		touchPages(t, pages)
	}
	f.finish()
	inRange(t, "page-faults/op less the overhead", f.metrics["page-faults/op"], pages)
	if f.metrics["task-clock/op"] <= 0 || len(f.logs) != 0 {
		t.Errorf("task-clock/op = %v, logs %q", f.metrics["task-clock/op"], f.logs)
	}
}

// An empty region counts about one sample's task-clock, which the subtraction removes.
func TestOpenSubtractOverheadShrinksAnEmptyRegion(t *testing.T) {
	const runs = 31
	kept := make([]float64, runs)
	subtracted := make([]float64, runs)
	for i := 0; i < runs; i++ { // interleaved, so load changes hit both alike
		for _, sub := range []bool{false, true} {
			f := newFake(t)
			open(f, func() int { return 1 }, Options{SubtractOverhead: sub}, []string{"task-clock"})
			f.finish()
			v, ok := f.metrics["task-clock/op"]
			if !ok {
				t.Fatalf("task-clock not reported: logs %q", f.logs)
			}
			if sub {
				subtracted[i] = v
			} else {
				kept[i] = v
			}
		}
	}
	sort.Float64s(kept)
	sort.Float64s(subtracted)
	if subtracted[runs/2] >= kept[runs/2] {
		t.Errorf("median empty region: %.0f ns with the overhead subtracted, %.0f ns without",
			subtracted[runs/2], kept[runs/2])
	}
	t.Logf("median empty region: %.0f ns subtracted, %.0f ns kept", subtracted[runs/2], kept[runs/2])
}
