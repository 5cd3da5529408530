//go:build linux

package kpc_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

func TestErrorsUnknownEvent(t *testing.T) {
	s := perfSampler(t)
	const name = "no-such-event-xyz"

	_, err := s.FindEvent(name)
	e := requireStatus(t, err, kpc.ErrUnknownEvent, "FindEvent(unknown)")
	if !strings.Contains(e.Message, name) {
		t.Errorf("FindEvent message should name the event: %q", e.Message)
	}
	if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), kpc.ErrUnknownEvent.Error()) {
		t.Errorf("Error() should carry the message and the status text: %q", err.Error())
	}

	defer lockThread()()
	_, err = s.NewCounters("task-clock", name)
	e = requireStatus(t, err, kpc.ErrUnknownEvent, "NewCounters(unknown)")
	if !strings.Contains(e.Message, name) {
		t.Errorf("NewCounters message should name the event: %q", e.Message)
	}
	if errors.Is(err, kpc.ErrUnavailable) {
		t.Errorf("an unknown event must not match ErrUnavailable")
	}
	var st kpc.Status
	if !errors.As(err, &st) || st != kpc.ErrUnknownEvent {
		t.Errorf("errors.As(err, *Status) = %v, want ErrUnknownEvent", st)
	}
	if !errors.Is(err, &kpc.Error{Status: kpc.ErrUnknownEvent}) {
		t.Errorf("errors.Is against an *Error of the same status should match")
	}
}

// A hardware event fails with ErrUnavailable on a machine without a PMU and counts where
// there is one.
func TestErrorsHardwareEvent(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	c, err := s.NewCounters("cycles")
	if err == nil {
		defer c.Close()
		t.Logf("this machine has a PMU (%s): cycles can be counted", s.PMUName())
		if err := c.Start(); err != nil {
			t.Fatalf("Start(cycles): %v", err)
		}
		burnCPU(t, 10*time.Millisecond)
		v := sample(t, c)
		if v[0] == 0 {
			t.Errorf("cycles counted 0 after work")
		}
		return
	}
	if errors.Is(err, kpc.ErrPermission) || errors.Is(err, kpc.ErrBusy) {
		t.Skipf("hardware counters exist but cannot be used here: %v", err)
	}
	e := requireStatus(t, err, kpc.ErrUnavailable, "NewCounters(cycles) without a PMU")
	if !strings.Contains(e.Message, "cycles") {
		t.Errorf("message should name the event: %q", e.Message)
	}
	ev, err := s.FindEvent("cycles")
	if err != nil {
		t.Fatalf("FindEvent(cycles): %v", err)
	}
	if ev.Available || ev.UnavailableReason == "" {
		t.Errorf("cycles: Available=%v, reason %q; want unavailable with a reason", ev.Available, ev.UnavailableReason)
	}
}

func TestErrorsInvalidArguments(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	_, err := s.NewCounters()
	requireStatus(t, err, kpc.ErrInvalid, "NewCounters()")
	_, err = s.NewCounters("task-clock", "task-clock")
	e := requireStatus(t, err, kpc.ErrInvalid, "NewCounters(task-clock twice)")
	if !strings.Contains(e.Message, "task-clock") {
		t.Errorf("message should name the duplicate: %q", e.Message)
	}
	_, err = s.NewCounters("task\x00clock")
	requireStatus(t, err, kpc.ErrInvalid, "NewCounters(name with NUL)")
	_, err = s.FindEvent("task\x00clock")
	requireStatus(t, err, kpc.ErrInvalid, "FindEvent(name with NUL)")
	_, err = kpc.NewSampler(&kpc.Options{Backend: kpc.Backend(42)})
	requireStatus(t, err, kpc.ErrInvalid, "NewSampler(backend 42)")

	c := newCounters(t, s, "task-clock")
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	fresh, err := s.NewCounters("page-faults")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	_, err = fresh.Sample(nil)
	requireStatus(t, err, kpc.ErrState, "Sample before Start")
}

func TestErrorsStatusText(t *testing.T) {
	if got := kpc.ErrUnknownEvent.Error(); got == "" || got == "unknown status" {
		t.Errorf("ErrUnknownEvent.Error() = %q, want kp_strerror's text", got)
	}
	if got := kpc.Status(-1000).Error(); got != "unknown status" {
		t.Errorf("Status(-1000).Error() = %q, want %q", got, "unknown status")
	}
	seen := map[string]kpc.Status{}
	for st := kpc.ErrInternal; st >= kpc.ErrPartial; st-- {
		text := st.Error()
		if text == "unknown status" {
			t.Errorf("status %d has no kp_strerror text", st)
		}
		if prev, dup := seen[text]; dup {
			t.Errorf("statuses %d and %d share the text %q", prev, st, text)
		}
		seen[text] = st
	}
}

// The binding locks and unlocks the OS thread around each call and its error read; the
// caller's own lock must survive that, or Counters would start failing with ErrWrongThread.
func TestErrorsKeepCallersThreadLock(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "task-clock")
	for i := 0; i < 50; i++ {
		if _, err := s.FindEvent("still-no-such-event"); err == nil {
			t.Fatal("FindEvent(unknown) succeeded")
		}
		runtime.Gosched()
		if _, err := c.Sample(nil); err != nil {
			t.Fatalf("Sample after %d failed calls: %v", i+1, err)
		}
	}
}
