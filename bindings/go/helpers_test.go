//go:build linux

package kpc_test

import (
	"errors"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

const pageSize = 4096

// perfSampler opens a perf_event sampler (explicitly, so that a KPC_BACKEND in the
// environment does not change what these tests measure) and closes it when the test ends.
func perfSampler(t *testing.T) *kpc.Sampler {
	t.Helper()
	s, err := kpc.NewSampler(&kpc.Options{Backend: kpc.BackendPerfEvent})
	if err != nil {
		t.Fatalf("NewSampler(perf_event): %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newCounters creates and starts counters on the calling OS thread; the caller must have
// locked its goroutine. They are closed when the test ends.
func newCounters(t *testing.T, s *kpc.Sampler, names ...string) *kpc.Counters {
	t.Helper()
	c, err := s.NewCounters(names...)
	if err != nil {
		t.Fatalf("NewCounters(%v): %v", names, err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return c
}

func sample(t *testing.T, c *kpc.Counters) []uint64 {
	t.Helper()
	v, err := c.Sample(nil)
	if err != nil {
		t.Fatalf("Sample: %v", err)
	}
	return v
}

// touchPages maps n fresh anonymous pages and writes one byte to each: n page faults on
// the calling thread. Safe on any goroutine (it reports with t.Errorf, never t.Fatal).
func touchPages(t *testing.T, n int) {
	t.Helper()
	mem, err := syscall.Mmap(-1, 0, n*pageSize, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Errorf("mmap: %v", err)
		return
	}
	for i := 0; i < n; i++ {
		mem[i*pageSize] = 1
	}
	if err := syscall.Munmap(mem); err != nil {
		t.Errorf("munmap: %v", err)
	}
}

// threadCPUTime is CLOCK_THREAD_CPUTIME_ID of the calling OS thread.
func threadCPUTime(t *testing.T) time.Duration {
	t.Helper()
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID,
		uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		t.Errorf("clock_gettime(CLOCK_THREAD_CPUTIME_ID): %v", e)
	}
	return time.Duration(ts.Nano())
}

var sink uint64

// burnCPU spins on the calling OS thread until it has used d of CPU time by the kernel's
// own per-thread clock, so that a busy machine (which delays the loop) cannot shorten the
// work. It gives up after 20 s of wall time. Safe on any goroutine.
func burnCPU(t *testing.T, d time.Duration) {
	t.Helper()
	start := threadCPUTime(t)
	deadline := time.Now().Add(20 * time.Second)
	x := sink
	for threadCPUTime(t)-start < d {
		for i := 0; i < 10000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		if time.Now().After(deadline) {
			t.Errorf("could not use %v of CPU time within 20 s", d)
			break
		}
	}
	sink = x
}

// lockThread locks the calling goroutine to its OS thread until the test function returns.
// Call it as `defer lockThread()()`.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

func requireStatus(t *testing.T, err error, want kpc.Status, what string) *kpc.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: got no error, want %v (%d)", what, want, int(want))
	}
	if !errors.Is(err, want) {
		t.Fatalf("%s: got %v, want status %v (%d)", what, err, want, int(want))
	}
	var e *kpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %T is not a *kpc.Error: %v", what, err, err)
	}
	return e
}
