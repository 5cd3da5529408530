//go:build linux

package kpc_test

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

type delta struct {
	pageFaults uint64
	taskClock  time.Duration
	err        error
}

// Work on one locked goroutine (and on the test's own goroutine) does not show up in the
// Counters of another locked goroutine.
func TestThreadsIsolation(t *testing.T) {
	s := perfSampler(t)
	const pages = 512
	var ready sync.WaitGroup
	ready.Add(2)
	start := make(chan struct{})
	busyDone := make(chan struct{})

	run := func(busy bool, out chan<- delta) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c, err := s.NewCounters("page-faults", "task-clock")
		if err == nil {
			defer c.Close()
			err = c.Start()
		}
		var before []uint64
		if err == nil {
			before, err = c.Sample(nil)
		}
		ready.Done()
		if err != nil {
			out <- delta{err: err}
			return
		}
		<-start
		if busy {
			touchPages(t, pages)
			burnCPU(t, 30*time.Millisecond)
			close(busyDone)
		} else {
			<-busyDone
		}
		after, err := c.Sample(nil)
		if err != nil {
			out <- delta{err: err}
			return
		}
		out <- delta{pageFaults: after[0] - before[0], taskClock: time.Duration(after[1] - before[1])}
	}
	busyOut, idleOut := make(chan delta, 1), make(chan delta, 1)
	go run(true, busyOut)
	go run(false, idleOut)
	ready.Wait()
	close(start)
	// The test goroutine's own page faults must show up in neither.
	func() {
		defer lockThread()()
		touchPages(t, pages)
	}()
	busy, idle := <-busyOut, <-idleOut
	if busy.err != nil || idle.err != nil {
		t.Fatalf("busy goroutine: %v; idle goroutine: %v", busy.err, idle.err)
	}
	t.Logf("busy: %d page faults, %v task-clock; idle: %d page faults, %v task-clock",
		busy.pageFaults, busy.taskClock, idle.pageFaults, idle.taskClock)
	if busy.pageFaults < pages {
		t.Errorf("busy goroutine counted %d page faults, want >= %d", busy.pageFaults, pages)
	}
	if idle.pageFaults >= pages/2 {
		t.Errorf("idle goroutine counted %d page faults: another thread's work leaked in", idle.pageFaults)
	}
	if idle.taskClock*10 >= busy.taskClock {
		t.Errorf("idle goroutine's task-clock %v is not far below the busy one's %v", idle.taskClock, busy.taskClock)
	}
}

// Counters used from another OS thread (here another locked goroutine) refuse with
// ErrWrongThread and a message giving the Go rule; the creator keeps working, and Close
// works from anywhere.
func TestThreadsWrongThread(t *testing.T) {
	s := perfSampler(t)
	made := make(chan *kpc.Counters)
	checked := make(chan struct{})
	sampled := make(chan struct{})
	closed := make(chan struct{})
	owner := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c, err := s.NewCounters("task-clock")
		if err == nil {
			err = c.Start()
		}
		if err != nil {
			close(made)
			owner <- err
			return
		}
		made <- c
		<-checked
		if _, err := c.Sample(nil); err != nil {
			owner <- err
			return
		}
		close(sampled)
		<-closed
		_, err = c.Sample(nil)
		if !errors.Is(err, kpc.ErrClosed) {
			owner <- errors.New("Sample after another goroutine's Close: got " + errString(err))
			return
		}
		owner <- nil
	}()
	c, ok := <-made
	if !ok {
		t.Fatalf("owner goroutine: %v", <-owner)
	}

	runtime.LockOSThread() // a different OS thread from the owner's, which is locked too
	defer runtime.UnlockOSThread()
	_, err := c.Sample(nil)
	e := requireStatus(t, err, kpc.ErrWrongThread, "Sample from another OS thread")
	if !strings.Contains(e.Message, "runtime.LockOSThread") {
		t.Errorf("message should give the Go thread rule: %q", e.Message)
	}
	requireStatus(t, c.Start(), kpc.ErrWrongThread, "Start from another OS thread")
	requireStatus(t, c.Stop(), kpc.ErrWrongThread, "Stop from another OS thread")
	_, err = c.SampleFull()
	requireStatus(t, err, kpc.ErrWrongThread, "SampleFull from another OS thread")
	if !c.IsRunning() {
		t.Errorf("a refused Stop stopped the counters")
	}
	close(checked)
	// The owner still samples; then Close from this thread.
	select {
	case <-sampled:
	case err := <-owner:
		t.Fatalf("owner goroutine could not sample its own counters: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close from another goroutine: %v", err)
	}
	close(closed)
	if err := <-owner; err != nil {
		t.Errorf("owner goroutine: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
