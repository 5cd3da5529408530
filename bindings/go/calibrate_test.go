//go:build linux

package kpc_test

import (
	"errors"
	"strings"
	"testing"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

// Calibrate gives, per event, the smallest cost of an empty region: task-clock (the time of
// the samples themselves) is above 0 and below a region that does real work; a discrete
// event that sampling does not cause (page-faults) is 0.
func TestCountingCalibrate(t *testing.T) {
	defer lockThread()()
	c := newCounters(t, perfSampler(t), "task-clock", "page-faults")
	offsets, err := c.Calibrate(50)
	if err != nil {
		t.Fatalf("Calibrate(50): %v", err)
	}
	if len(offsets) != 2 {
		t.Fatalf("Calibrate returned %d offsets, want 2 (one per event)", len(offsets))
	}
	before := sample(t, c)
	touchPages(t, 64)
	after := sample(t, c)
	if work := after[0] - before[0]; offsets[0] == 0 || offsets[0] >= work {
		t.Errorf("task-clock offset %d ns, want > 0 and below the %d ns of touching 64 pages",
			offsets[0], work)
	}
	if offsets[1] != 0 {
		t.Errorf("page-faults offset %d, want 0: sampling causes no page faults", offsets[1])
	}
}

func TestCountingCalibrateErrors(t *testing.T) {
	defer lockThread()()
	s := perfSampler(t)
	c, err := s.NewCounters("task-clock")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Calibrate(10)
	requireStatus(t, err, kpc.ErrState, "Calibrate before Start")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e := requireStatusOf(t, c, -1)
	if !strings.Contains(e.Message, "1000000") {
		t.Errorf("the out-of-range message does not give the range: %q", e.Message)
	}
	requireStatusOf(t, c, 1000001)
	c.Close()
	if _, err := c.Calibrate(10); !errors.Is(err, kpc.ErrClosed) {
		t.Errorf("Calibrate after Close: %v, want an error wrapping ErrClosed", err)
	}
}

func requireStatusOf(t *testing.T, c *kpc.Counters, rounds int) *kpc.Error {
	t.Helper()
	_, err := c.Calibrate(rounds)
	return requireStatus(t, err, kpc.ErrInvalid, "Calibrate with rounds out of range")
}
