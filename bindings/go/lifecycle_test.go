//go:build linux

package kpc_test

import (
	"errors"
	"runtime"
	"testing"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

func TestLifecycleSamplerInfo(t *testing.T) {
	s := perfSampler(t)
	if s.BackendName() != "perf_event" || s.Backend() != kpc.BackendPerfEvent {
		t.Errorf("backend %q (%d), want perf_event", s.BackendName(), s.Backend())
	}
	if s.CPUID() == "" || s.CPUName() == "" || s.PMUName() == "" {
		t.Errorf("empty identity: cpu id %q, cpu name %q, pmu %q", s.CPUID(), s.CPUName(), s.PMUName())
	}
	fixed, configurable, err := s.Counters()
	if fixed < 0 || configurable < 0 || (err != nil && !errors.Is(err, kpc.ErrUnsupported)) {
		t.Errorf("Counters() = %d, %d, %v; want counts, or ErrUnsupported when unknown", fixed, configurable, err)
	}
	if v := kpc.Version(); v == "" {
		t.Errorf("Version() is empty")
	}
	t.Logf("backend %s, cpu %q (%s), pmu %q, %d fixed + %d configurable counters, libkpc %s",
		s.BackendName(), s.CPUName(), s.CPUID(), s.PMUName(), fixed, configurable, kpc.Version())
}

// NewSampler(nil) takes every default: KPC_BACKEND, else the platform's backend.
func TestLifecycleDefaultOptions(t *testing.T) {
	s, err := kpc.NewSampler(nil)
	if err != nil {
		t.Fatalf("NewSampler(nil): %v", err)
	}
	defer s.Close()
	if s.BackendName() == "" {
		t.Errorf("no backend name")
	}
	if len(s.Events()) == 0 {
		t.Errorf("default sampler has no events")
	}
}

func TestLifecycleCloseIsIdempotent(t *testing.T) {
	s, err := kpc.NewSampler(&kpc.Options{Backend: kpc.BackendPerfEvent})
	if err != nil {
		t.Fatal(err)
	}
	defer lockThread()()
	c, err := s.NewCounters("task-clock")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := c.Close(); err != nil {
			t.Errorf("Counters.Close #%d: %v", i+1, err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("Sampler.Close #%d: %v", i+1, err)
		}
	}
}

func TestLifecycleUseAfterClose(t *testing.T) {
	s, err := kpc.NewSampler(&kpc.Options{Backend: kpc.BackendPerfEvent})
	if err != nil {
		t.Fatal(err)
	}
	defer lockThread()()
	c, err := s.NewCounters("task-clock", "page-faults")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	name := s.CPUName()
	c.Close()
	s.Close()

	closed := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, kpc.ErrClosed) {
			t.Errorf("%s after Close: got %v, want ErrClosed", what, err)
		}
	}
	closed("Counters.Start", c.Start())
	closed("Counters.Stop", c.Stop())
	buf := []uint64{7}
	got, err := c.Sample(buf)
	closed("Counters.Sample", err)
	if len(got) != 1 || got[0] != 7 {
		t.Errorf("Sample after Close changed dst: %v", got)
	}
	_, err = c.SampleFull()
	closed("Counters.SampleFull", err)
	if c.IsRunning() {
		t.Errorf("closed Counters report running")
	}
	if ev := c.Events(); len(ev) != 2 || ev[0].Name != "task-clock" || ev[1].Name != "page-faults" {
		t.Errorf("Counters.Events after Close = %+v, want the two copied events", ev)
	}

	closed("Sampler.Access", s.Access())
	closed("Sampler.Release", s.Release())
	_, err = s.FindEvent("task-clock")
	closed("Sampler.FindEvent", err)
	_, err = s.NewCounters("task-clock")
	closed("Sampler.NewCounters", err)
	if ev := s.Events(); ev != nil {
		t.Errorf("Sampler.Events after Close = %d events, want nil", len(ev))
	}
	if s.CPUName() != name || s.BackendName() != "perf_event" {
		t.Errorf("identity getters changed after Close: %q %q", s.CPUName(), s.BackendName())
	}
}

// The sampler may be closed while its Counters live: they keep counting (the native handle
// keeps the session alive).
func TestLifecycleSamplerClosedBeforeCounters(t *testing.T) {
	s, err := kpc.NewSampler(&kpc.Options{Backend: kpc.BackendPerfEvent})
	if err != nil {
		t.Fatal(err)
	}
	defer lockThread()()
	c, err := s.NewCounters("page-faults")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.GC() // nothing may depend on the closed Sampler object either
	before := sample(t, c)
	const pages = 128
	touchPages(t, pages)
	after := sample(t, c)
	if after[0]-before[0] < pages {
		t.Errorf("page-faults grew by %d after the sampler was closed, want >= %d", after[0]-before[0], pages)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if ev := c.Events(); len(ev) != 1 || ev[0].Name != "page-faults" {
		t.Errorf("Events() = %+v", ev)
	}
}

// Release gives the counters back: later counting fails with ErrState while the event
// database stays readable.
func TestLifecycleRelease(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "task-clock")
	if err := s.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := s.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	_, err := c.Sample(nil)
	requireStatus(t, err, kpc.ErrState, "Sample after Release")
	_, err = s.NewCounters("page-faults")
	requireStatus(t, err, kpc.ErrState, "NewCounters after Release")
	if _, err := s.FindEvent("task-clock"); err != nil {
		t.Errorf("FindEvent after Release: %v", err)
	}
}

// Forgotten handles are freed by finalizers (the safety net); this must neither crash nor
// disturb live handles.
func TestLifecycleFinalizers(t *testing.T) {
	keep := perfSampler(t)
	defer lockThread()()
	live := newCounters(t, keep, "page-faults")
	for i := 0; i < 20; i++ {
		s, err := kpc.NewSampler(&kpc.Options{Backend: kpc.BackendPerfEvent})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.NewCounters("task-clock"); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.GC()
	before := sample(t, live)
	touchPages(t, 16)
	after := sample(t, live)
	if after[0]-before[0] < 16 {
		t.Errorf("live counters broke after finalizers ran: %v -> %v", before, after)
	}
}
