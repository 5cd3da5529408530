//go:build linux

package kpc_test

// The kperf backend against libkpc's simulator of Apple's frameworks (tests/kperf_sim).
// CTest's go_kperf_sim runs these with KPC_BACKEND=kperf and KPC_KPERF_PATH /
// KPC_KPERFDATA_PATH naming the simulator libraries; without them the tests skip.

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

// simSampler opens the default sampler, which the environment points at the simulator.
func simSampler(t *testing.T) *kpc.Sampler {
	t.Helper()
	if os.Getenv("KPC_BACKEND") != "kperf" || os.Getenv("KPC_KPERF_PATH") == "" ||
		os.Getenv("KPC_KPERFDATA_PATH") == "" {
		t.Skip("needs the kperf simulator: run `ctest -R go_kperf_sim` (sets KPC_BACKEND=kperf, KPC_KPERF_PATH, KPC_KPERFDATA_PATH)")
	}
	s, err := kpc.NewSampler(nil)
	if err != nil {
		t.Fatalf("NewSampler(nil) with the simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestKperfSimIdentity(t *testing.T) {
	s := simSampler(t)
	if s.BackendName() != "kperf" || s.Backend() != kpc.BackendKperf {
		t.Errorf("backend %q, want kperf", s.BackendName())
	}
	if !strings.HasPrefix(s.CPUName(), "Apple M") {
		t.Errorf("CPUName() = %q, want the simulated Apple chip", s.CPUName())
	}
	if !strings.Contains(s.PMUName(), "Apple") || s.CPUID() == "" {
		t.Errorf("PMU %q, CPU id %q", s.PMUName(), s.CPUID())
	}
	// kperfdata gives the simulated chip's counts: known, so no error.
	fixed, configurable, err := s.Counters()
	if err != nil || fixed <= 0 || configurable <= 0 {
		t.Errorf("Counters() = %d fixed, %d configurable, %v", fixed, configurable, err)
	}
	if err := s.Access(); err != nil {
		t.Errorf("Access() as simulated root: %v", err)
	}
	cycles, err := s.FindEvent("cycles")
	if err != nil {
		t.Fatal(err)
	}
	if cycles.Kind != kpc.Fixed || !cycles.Available || cycles.NativeName == "" {
		t.Errorf("cycles on Apple: %+v, want an available fixed event", cycles)
	}
	t.Logf("simulated %q (%s), PMU %q, %d fixed + %d configurable counters",
		s.CPUName(), s.CPUID(), s.PMUName(), fixed, configurable)
}

// Options name the simulator explicitly, as a program would name Apple's paths; a wrong
// path is ErrLoad naming it.
func TestKperfSimExplicitOptions(t *testing.T) {
	simSampler(t) // skip unless the environment names the simulator
	opts := kpc.Options{
		Backend:       kpc.BackendKperf,
		KperfPath:     os.Getenv("KPC_KPERF_PATH"),
		KperfdataPath: os.Getenv("KPC_KPERFDATA_PATH"),
	}
	s, err := kpc.NewSampler(&opts)
	if err != nil {
		t.Fatalf("NewSampler(%+v): %v", opts, err)
	}
	s.Close()
	opts.KperfPath = "/nonexistent/kperf.framework/kperf"
	_, err = kpc.NewSampler(&opts)
	e := requireStatus(t, err, kpc.ErrLoad, "NewSampler with a missing framework")
	if !strings.Contains(e.Message, opts.KperfPath) {
		t.Errorf("message should name the path: %q", e.Message)
	}
}

func TestKperfSimCyclesGrow(t *testing.T) {
	s := simSampler(t)
	idleReady, busyDone := make(chan *kpc.Counters), make(chan struct{})
	idleResult := make(chan []uint64, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		// Apple's configuration is system-wide: both sets count the same events.
		c, err := s.NewCounters("cycles", "instructions")
		if err != nil || c.Start() != nil {
			t.Errorf("idle goroutine: NewCounters/Start: %v", err)
			close(idleReady)
			return
		}
		defer c.Close()
		before, _ := c.Sample(nil)
		idleReady <- c
		<-busyDone
		after, err := c.Sample(nil)
		if err != nil {
			t.Errorf("idle goroutine: Sample: %v", err)
			close(idleResult)
			return
		}
		idleResult <- []uint64{after[0] - before[0], after[1] - before[1]}
	}()
	if _, ok := <-idleReady; !ok {
		t.FailNow()
	}

	defer lockThread()()
	c := newCounters(t, s, "cycles", "instructions")
	prev := sample(t, c)
	first := append([]uint64(nil), prev...)
	for i := 0; i < 5; i++ {
		burnCPU(t, 4*time.Millisecond)
		now := sample(t, c)
		if now[0] < prev[0] || now[1] < prev[1] {
			t.Fatalf("totals went down: %v -> %v", prev, now)
		}
		prev = now
	}
	close(busyDone)
	cycles, instructions := prev[0]-first[0], prev[1]-first[1]
	idle, ok := <-idleResult
	if !ok {
		t.FailNow()
	}
	t.Logf("busy: %d cycles, %d instructions over 20 ms of CPU; idle goroutine: %d cycles", cycles, instructions, idle[0])
	if cycles < 1_000_000 || instructions < 1_000_000 {
		t.Errorf("20 ms of work counted %d cycles, %d instructions", cycles, instructions)
	}
	if idle[0]*10 >= cycles {
		t.Errorf("the idle goroutine counted %d cycles against the busy one's %d", idle[0], cycles)
	}
}

func TestKperfSimSoftwareEventUnavailable(t *testing.T) {
	s := simSampler(t)
	defer lockThread()()
	_, err := s.NewCounters("task-clock")
	e := requireStatus(t, err, kpc.ErrUnavailable, "NewCounters(task-clock) on kperf")
	if !strings.Contains(e.Message, "perf_event") {
		t.Errorf("message should point at the perf_event backend: %q", e.Message)
	}
}
