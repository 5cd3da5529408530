//go:build linux

package kpc_test

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

// What `workload touch N` faults besides its N pages (loader, libc): about 60 here.
const workloadStartupFaults = 400

// workloadPath is tests/cli's workload program, whose path CTest passes in.
func workloadPath(t *testing.T) string {
	t.Helper()
	w := os.Getenv("KPC_TEST_WORKLOAD")
	if w == "" {
		t.Skip("KPC_TEST_WORKLOAD is not set (CTest sets it to tests/cli's workload)")
	}
	return w
}

func countProcess(t *testing.T, s *kpc.Sampler, names ...string) *kpc.Process {
	t.Helper()
	p, err := s.CountProcess(names...)
	if err != nil {
		t.Fatalf("CountProcess(%v): %v", names, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func read(t *testing.T, p *kpc.Process) []uint64 {
	t.Helper()
	v, err := p.Read()
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return v
}

// The point of CountProcess: goroutines are counted whichever OS thread runs them, and
// threads the runtime creates after the handle (for the locked goroutines here) too.
func TestProcessCountsEveryGoroutine(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	s := perfSampler(t)
	p := countProcess(t, s, "page-faults")
	if p.Pid() != os.Getpid() {
		t.Fatalf("Pid() = %d, want this process's %d", p.Pid(), os.Getpid())
	}
	if got := p.Scopes(); len(got) != 1 || got[0] != kpc.ScopeTree {
		t.Fatalf("Scopes() = %v, want [tree]", got)
	}
	const goroutines, rounds, pages = 8, 4, 64
	before := read(t, p)[0]
	var mu sync.Mutex
	threads := map[int]bool{}
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(locked bool) {
			defer wg.Done()
			if locked {
				// A locked goroutine keeps its thread, so the others need new ones.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			for r := 0; r < rounds; r++ {
				mu.Lock()
				threads[syscall.Gettid()] = true
				mu.Unlock()
				touchPages(t, pages)
				runtime.Gosched() // let the scheduler move unlocked goroutines
			}
		}(g%2 == 0)
	}
	wg.Wait()
	counted := read(t, p)[0] - before
	if len(threads) < 2 {
		t.Fatalf("the goroutines ran on %d OS thread(s): the test proves nothing", len(threads))
	}
	if want := uint64(goroutines * rounds * pages); counted < want {
		t.Errorf("%d page faults counted for %d pages touched on %d OS threads",
			counted, want, len(threads))
	}
	t.Logf("%d page faults for %d pages, on %d OS threads", counted, goroutines*rounds*pages, len(threads))
}

func TestProcessSpawnCountsTheCommand(t *testing.T) {
	w := workloadPath(t)
	s := perfSampler(t)
	const pages = 2000
	p, err := s.SpawnProcess([]string{w, "touch", strconv.Itoa(pages)}, "page-faults", "task-clock")
	if err != nil {
		t.Fatalf("SpawnProcess: %v", err)
	}
	defer p.Close()
	if p.Pid() <= 0 || p.Pid() == os.Getpid() {
		t.Fatalf("Pid() = %d", p.Pid())
	}
	st, err := p.Wait()
	if err != nil || !st.Success() {
		t.Fatalf("Wait = %v, %v; want exit status 0", st, err)
	}
	v := read(t, p)
	if v[0] < pages || v[0] > pages+workloadStartupFaults {
		t.Errorf("%d page faults for a command touching %d pages", v[0], pages)
	}
	if v[1] == 0 {
		t.Errorf("task-clock 0")
	}
	full, err := p.ReadFull()
	if err != nil {
		t.Fatalf("ReadFull: %v", err)
	}
	for i := range v {
		if full.Values[i] != v[i] {
			t.Errorf("ReadFull value %d = %d, Read gave %d (the totals of an ended command stay)", i, full.Values[i], v[i])
		}
		if !full.Complete[i] || full.TimeRunning[i] > full.TimeEnabled[i] || full.TimeEnabled[i] == 0 {
			t.Errorf("event %d: complete %v, enabled %v, running %v", i, full.Complete[i], full.TimeEnabled[i], full.TimeRunning[i])
		}
	}
}

func TestProcessWaitExitCodeAndSignal(t *testing.T) {
	s := perfSampler(t)
	for _, c := range []struct {
		script string
		want   kpc.ExitStatus
	}{
		{"exit 3", kpc.ExitStatus{Code: 3}},
		{"kill -KILL $$", kpc.ExitStatus{Code: -1, Signal: int(syscall.SIGKILL)}},
	} {
		p, err := s.SpawnProcess([]string{"sh", "-c", c.script}, "task-clock")
		if err != nil {
			t.Fatalf("SpawnProcess(sh -c %q): %v", c.script, err)
		}
		for i := 0; i < 2; i++ { // the second Wait gives the same result at once
			if st, err := p.Wait(); err != nil || st != c.want {
				t.Errorf("sh -c %q: Wait = %v, %v; want %v", c.script, st, err, c.want)
			}
		}
		p.Close()
	}
}

func TestProcessStopPausesStartResumes(t *testing.T) {
	s := perfSampler(t)
	p := countProcess(t, s, "page-faults")
	defer lockThread()()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if p.IsCounting() {
		t.Fatal("IsCounting after Stop")
	}
	paused := read(t, p)[0]
	touchPages(t, 1000)
	// Only a thread created at the very moment of the stop could escape it (kpc/process.h).
	if d := read(t, p)[0] - paused; d >= 500 {
		t.Errorf("%d page faults counted while stopped", d)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	touchPages(t, 1000)
	if d := read(t, p)[0] - paused; d < 1000 {
		t.Errorf("%d page faults after Start for 1000 pages", d)
	}
}

func TestProcessReadWhileAnotherGoroutineWaits(t *testing.T) {
	s := perfSampler(t)
	p, err := s.SpawnProcess([]string{"sleep", "0.3"}, "task-clock")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	done := make(chan error, 1)
	go func() {
		st, err := p.Wait()
		if err == nil && !st.Success() {
			err = errors.New(st.String())
		}
		done <- err
	}()
	read(t, p) // not blocked by the Wait in progress
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

func TestProcessErrors(t *testing.T) {
	s := perfSampler(t)
	_, err := s.SpawnProcess([]string{"kpc-no-such-program"}, "task-clock")
	e := requireStatus(t, err, kpc.ErrExec, "SpawnProcess(kpc-no-such-program)")
	if e.OSCode != int(syscall.ENOENT) || !strings.Contains(e.Message, "kpc-no-such-program") {
		t.Errorf("error %q, OS code %d; want the program named and ENOENT", e.Message, e.OSCode)
	}
	_, err = s.SpawnProcess(nil, "task-clock")
	requireStatus(t, err, kpc.ErrInvalid, "SpawnProcess(nil)")
	_, err = s.SpawnProcess([]string{"sh", "a\x00b"}, "task-clock")
	requireStatus(t, err, kpc.ErrInvalid, "SpawnProcess with a NUL byte")
	_, err = s.CountProcess("no-such-event")
	e = requireStatus(t, err, kpc.ErrUnknownEvent, "CountProcess(no-such-event)")
	if !strings.Contains(e.Message, "no-such-event") {
		t.Errorf("message %q does not name the event", e.Message)
	}
	_, err = s.AttachProcess(-5, "task-clock")
	requireStatus(t, err, kpc.ErrInvalid, "AttachProcess(-5)")

	p := countProcess(t, s, "task-clock")
	_, err = p.Wait()
	if e := requireStatus(t, err, kpc.ErrState, "Wait on an attached process"); e.Message == "" {
		t.Error("no message")
	}
	p.Close()
	if _, err := p.Read(); !errors.Is(err, kpc.ErrClosed) {
		t.Errorf("Read after Close: %v, want ErrClosed", err)
	}
	if p.Close() != nil || p.IsCounting() || len(p.Events()) != 1 {
		t.Error("Close not idempotent, or state lost")
	}
	s.Close()
	if _, err := s.CountProcess("task-clock"); !errors.Is(err, kpc.ErrClosed) {
		t.Errorf("CountProcess after Sampler.Close: %v, want ErrClosed", err)
	}
}

func TestProcessCloseKillsACommandNotWaitedFor(t *testing.T) {
	s := perfSampler(t)
	p, err := s.SpawnProcess([]string{"sleep", "30"}, "task-clock")
	if err != nil {
		t.Fatal(err)
	}
	pid := p.Pid()
	p.Close()
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("kill(%d, 0) after Close = %v, want ESRCH (killed and reaped)", pid, err)
	}
}

func TestProcessOutlivesItsSampler(t *testing.T) {
	s := perfSampler(t)
	p := countProcess(t, s, "task-clock")
	s.Close()
	if v := read(t, p); v[0] == 0 {
		t.Error("task-clock 0")
	}
}
