//go:build linux

package kpc_test

import (
	"errors"
	"os"
	"testing"
	"time"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

// countSystemWide runs CountSystemWideWith and closes the Process when the test ends. It
// skips where the kernel refuses system-wide counting to a process that is not root.
func countSystemWide(t *testing.T, s *kpc.Sampler, opts kpc.ProcessOptions, names ...string) *kpc.Process {
	t.Helper()
	p, err := s.CountSystemWideWith(opts, names...)
	if errors.Is(err, kpc.ErrPermission) && os.Geteuid() != 0 {
		t.Skipf("system-wide counting needs root, CAP_PERFMON or perf_event_paranoid <= 0 here: %v", err)
	}
	if err != nil {
		t.Fatalf("CountSystemWideWith(%+v, %v): %v", opts, names, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestSystemWideCountsEveryCPU(t *testing.T) {
	s := perfSampler(t)
	p := countSystemWide(t, s, kpc.ProcessOptions{}, "task-clock")
	before := read(t, p)[0]
	const nap = 100 * time.Millisecond
	time.Sleep(nap) // this program idles; every CPU's clock still runs
	if d := time.Duration(read(t, p)[0] - before); d < nap/2 {
		t.Errorf("system-wide task-clock advanced %v across a %v sleep, want > %v", d, nap, nap/2)
	} else {
		t.Logf("system-wide task-clock: %v across a %v sleep", d, nap)
	}
	if got := p.Scopes(); len(got) != 1 || got[0] != kpc.ScopeSystem {
		t.Errorf("Scopes() = %v, want [system]", got)
	}
	if p.Pid() != -1 {
		t.Errorf("Pid() = %d, want -1", p.Pid())
	}
	if p.ThreadCount() != 0 {
		t.Errorf("ThreadCount() = %d, want 0 (no per-thread rows system-wide)", p.ThreadCount())
	}
	_, err := p.Wait()
	requireStatus(t, err, kpc.ErrState, "Wait on a system-wide Process")
	_, err = p.ReadThread(0)
	requireStatus(t, err, kpc.ErrInvalid, "ReadThread(0) system-wide")
}

func TestSystemWideWithPartial(t *testing.T) {
	s := perfSampler(t)
	requireCyclesUnavailable(t, s)
	p := countSystemWide(t, s, kpc.ProcessOptions{Partial: true}, "task-clock", "cycles")
	time.Sleep(10 * time.Millisecond)
	if v := read(t, p); v[0] == 0 || v[1] != 0 {
		t.Errorf("task-clock %d, cycles %d; want > 0 and 0", v[0], v[1])
	}
	if err := p.EventStatus(0); err != nil {
		t.Errorf("EventStatus(task-clock) = %v", err)
	}
	requireStatus(t, p.EventStatus(1), kpc.ErrUnavailable, "EventStatus(cycles) system-wide")
}

func TestSystemWideIsNoPid(t *testing.T) {
	s := perfSampler(t)
	for _, pid := range []int{-1, -5} {
		_, err := s.AttachProcessWith(kpc.ProcessOptions{}, pid, "task-clock")
		e := requireStatus(t, err, kpc.ErrInvalid, "AttachProcessWith(pid -1)")
		if e.Message == "" {
			t.Error("no message")
		}
	}
}
