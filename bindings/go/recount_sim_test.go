//go:build linux

package kpc_test

// The recount backend (macOS without root) against libkpc's simulated libSystem
// (tests/recount_sim). CTest's go_recount_sim runs these with KPC_BACKEND=recount and
// KPC_LIBSYSTEM_PATH naming librecount_sim.so (and KPC_TEST_RCSIM_NOSELFCOUNTS naming the
// variant without thread_selfcounts); without them the tests skip.
//
// The simulator's model (tests/recount_sim/README.md): cycles = the thread's CPU ns × 3,
// instructions = cycles × 2, a share RCSIM_P_SHARE (default 0.75) of both on P cores.
// RCSIM_* knobs are read when the simulator is loaded, so a test of another simulated
// machine runs itself again in a child process with the knob set (inRecountVariant).

import (
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

const (
	rcsimCyclesPerNs          = 3
	rcsimInstructionsPerCycle = 2
	// Set in the child process of inRecountVariant to the test it must run.
	recountVariantEnv = "KPC_TEST_RECOUNT_VARIANT"
)

func requireRecountSim(t *testing.T) {
	t.Helper()
	if os.Getenv("KPC_BACKEND") != "recount" || os.Getenv("KPC_LIBSYSTEM_PATH") == "" {
		t.Skip("needs the simulated libSystem: run `ctest -R go_recount_sim` (sets KPC_BACKEND=recount, KPC_LIBSYSTEM_PATH)")
	}
}

// recountSampler opens the default sampler, which the environment points at the simulator.
func recountSampler(t *testing.T) *kpc.Sampler {
	t.Helper()
	requireRecountSim(t)
	s, err := kpc.NewSampler(nil)
	if err != nil {
		t.Fatalf("NewSampler(nil) with the simulated libSystem: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// inRecountVariant reports whether this process is the simulated machine `env` describes.
// If not, it runs the calling test again in a child process with `env` added, checks that
// the child ran it and passed, and returns false: the caller then returns.
func inRecountVariant(t *testing.T, env ...string) bool {
	t.Helper()
	requireRecountSim(t)
	if os.Getenv(recountVariantEnv) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(append(os.Environ(), env...), recountVariantEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("child process with %v:\n%s", env, out)
	if err != nil {
		t.Fatalf("the test failed on the simulated machine %v: %v", env, err)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("the child process with %v did not pass %s", env, t.Name())
	}
	return false
}

func rcsimPShare(t *testing.T) float64 {
	v := os.Getenv("RCSIM_P_SHARE")
	if v == "" {
		return 0.75
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("RCSIM_P_SHARE=%q: %v", v, err)
	}
	return f
}

func TestRecountSimIdentity(t *testing.T) {
	s := recountSampler(t)
	if s.Backend() != kpc.BackendRecount || int(s.Backend()) != 3 || s.BackendName() != "recount" {
		t.Errorf("backend %d %q, want 3 \"recount\"", s.Backend(), s.BackendName())
	}
	if s.BackendReason() != "named by KPC_BACKEND=recount" {
		t.Errorf("BackendReason() = %q, want it to name KPC_BACKEND=recount", s.BackendReason())
	}
	if err := s.Access(); err != nil {
		t.Errorf("Access() on recount needs no root: %v", err)
	}
	s.Close()
	if s.BackendReason() == "" {
		t.Errorf("BackendReason() is not kept after Close")
	}
}

// The perf_event sampler says it is this platform's own, or named by the caller.
func TestRecountSimReasonOfOtherBackends(t *testing.T) {
	requireRecountSim(t)
	s := perfSampler(t)
	if !strings.Contains(s.BackendReason(), "named by the caller") {
		t.Errorf("perf_event named in Options: reason %q", s.BackendReason())
	}
}

func TestRecountSimCyclesFollowCPUTime(t *testing.T) {
	s := recountSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "cycles", "instructions")
	cpu0 := threadCPUTime(t)
	before := sample(t, c)
	burnCPU(t, 30*time.Millisecond)
	after := sample(t, c)
	cpu := threadCPUTime(t) - cpu0
	for i, v := range [][]uint64{before, after} {
		if v[1] != rcsimInstructionsPerCycle*v[0] {
			t.Errorf("sample %d: instructions %d != 2 × cycles %d", i, v[1], v[0])
		}
	}
	cycles := float64(after[0] - before[0])
	want := rcsimCyclesPerNs * float64(cpu.Nanoseconds())
	// The samples lie inside the measured interval: a little less, never more.
	if cycles > want*1.001 || cycles < want*0.95 {
		t.Errorf("cycles %v over %v of CPU time, want ≈ 3 × %d ns = %v", cycles, cpu, cpu.Nanoseconds(), want)
	}
	t.Logf("%v of CPU time: %v cycles (%.4f of the model's)", cpu, cycles, cycles/want)
}

func TestRecountSimPerfLevelsAddUp(t *testing.T) {
	s := recountSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "cycles", "p-cycles", "e-cycles", "instructions", "p-instructions", "e-instructions")
	burnCPU(t, 20*time.Millisecond)
	v := sample(t, c)
	if v[1]+v[2] != v[0] || v[4]+v[5] != v[3] {
		t.Errorf("P + E != total: cycles %d + %d vs %d, instructions %d + %d vs %d",
			v[1], v[2], v[0], v[4], v[5], v[3])
	}
	share := rcsimPShare(t)
	for _, i := range []int{0, 3} {
		if got := float64(v[i+1]) / float64(v[i]); math.Abs(got-share) > 0.01 {
			t.Errorf("%s: P share %.4f, want RCSIM_P_SHARE %.2f", c.Events()[i].Name, got, share)
		}
	}
}

func TestRecountSimOnePerfLevel(t *testing.T) {
	if !inRecountVariant(t, "RCSIM_PERF_LEVELS=1") {
		return
	}
	s := recountSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "cycles", "p-cycles", "e-cycles", "e-instructions")
	burnCPU(t, 10*time.Millisecond)
	v := sample(t, c)
	if v[0] == 0 || v[1] != v[0] || v[2] != 0 || v[3] != 0 {
		t.Errorf("one perf level: cycles %d, p %d, e %d, e-instructions %d; want p = cycles, e = 0", v[0], v[1], v[2], v[3])
	}
}

func TestRecountSimVirtualMachine(t *testing.T) {
	if !inRecountVariant(t, "RCSIM_VM=1") {
		return
	}
	s := recountSampler(t)
	e := requireStatus(t, s.Access(), kpc.ErrUnsupported, "Access() in a macOS VM")
	if int(e.Status) != -7 || !strings.Contains(e.Message, "virtual machine") {
		t.Errorf("the message should say why (a virtual machine): %q", e.Message)
	}
	defer lockThread()()
	_, err := s.NewCounters("cycles")
	requireStatus(t, err, kpc.ErrUnsupported, "NewCounters(cycles) in a macOS VM")
}

func TestRecountSimWithoutThreadSelfcounts(t *testing.T) {
	path := os.Getenv("KPC_TEST_RCSIM_NOSELFCOUNTS")
	if path == "" {
		requireRecountSim(t)
		t.Skip("KPC_TEST_RCSIM_NOSELFCOUNTS does not name librecount_sim_noselfcounts.so (ctest -R go_recount_sim sets it)")
	}
	if !inRecountVariant(t, "KPC_LIBSYSTEM_PATH="+path) {
		return
	}
	s := recountSampler(t)
	e := requireStatus(t, s.Access(), kpc.ErrUnsupported, "Access() without thread_selfcounts")
	if !strings.Contains(e.Message, "thread_selfcounts") {
		t.Errorf("the message should name thread_selfcounts: %q", e.Message)
	}
}

func TestRecountSimOtherEventsNeedKperf(t *testing.T) {
	s := recountSampler(t)
	b, err := s.FindEvent("branches")
	if err != nil {
		t.Fatal(err)
	}
	if b.Available {
		t.Errorf("branches is available on recount: %+v", b)
	}
	defer lockThread()()
	_, err = s.NewCounters("cycles", "branches")
	e := requireStatus(t, err, kpc.ErrUnavailable, "NewCounters(cycles, branches)")
	if int(e.Status) != -9 || !strings.Contains(e.Message, "root") || !strings.Contains(e.Message, "kperf") {
		t.Errorf("the message should say that branches needs root and kperf: %q", e.Message)
	}
}

func TestRecountSimMacos12(t *testing.T) {
	if !inRecountVariant(t, "RCSIM_MACOS=12.6") {
		return
	}
	s := recountSampler(t)
	for _, name := range []string{"p-cycles", "e-instructions"} {
		ev, err := s.FindEvent(name)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Available || !strings.Contains(ev.UnavailableReason, "13.0") {
			t.Errorf("%s on macOS 12.6: available %v, reason %q; want unavailable, naming 13.0",
				name, ev.Available, ev.UnavailableReason)
		}
	}
	defer lockThread()()
	c := newCounters(t, s, "cycles", "instructions")
	burnCPU(t, 5*time.Millisecond)
	v := sample(t, c)
	if v[0] == 0 || v[1] != rcsimInstructionsPerCycle*v[0] {
		t.Errorf("macOS 12.6 totals: cycles %d, instructions %d", v[0], v[1])
	}
	_, err := s.NewCounters("cycles", "p-cycles")
	requireStatus(t, err, kpc.ErrUnavailable, "NewCounters(cycles, p-cycles) on macOS 12.6")
}

// Each thread's counters see only its own work.
func TestRecountSimThreadsCountInIsolation(t *testing.T) {
	s := recountSampler(t)
	type result struct {
		cycles uint64
		cpu    time.Duration
		err    error
	}
	done := make(chan result, 1)
	defer lockThread()()
	mine := newCounters(t, s, "cycles")
	before := sample(t, mine)[0]
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c, err := s.NewCounters("cycles")
		if err == nil {
			defer c.Close()
			err = c.Start()
		}
		if err != nil {
			done <- result{err: err}
			return
		}
		a, _ := c.Sample(nil)
		cpu0 := threadCPUTime(t)
		burnCPU(t, 40*time.Millisecond)
		cpu := threadCPUTime(t) - cpu0
		b, err := c.Sample(nil)
		if err != nil {
			done <- result{err: err}
			return
		}
		done <- result{cycles: b[0] - a[0], cpu: cpu}
	}()
	r := <-done // this thread waits meanwhile
	if r.err != nil {
		t.Fatalf("the busy goroutine: %v", r.err)
	}
	idle := sample(t, mine)[0] - before
	if float64(r.cycles) < rcsimCyclesPerNs*float64(r.cpu.Nanoseconds())*0.9 {
		t.Errorf("busy thread: %d cycles for %v of CPU time", r.cycles, r.cpu)
	}
	if idle >= r.cycles/10 {
		t.Errorf("the waiting thread counted %d cycles while the busy one counted %d", idle, r.cycles)
	}
	t.Logf("busy thread %d cycles, waiting thread %d", r.cycles, idle)
}
