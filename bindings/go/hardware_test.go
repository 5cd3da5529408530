//go:build linux

package kpc_test

import (
	"testing"
	"time"
)

// Counts cycles and instructions where the machine has a usable PMU; skipped (with the
// reason) where it has none, e.g. in a virtual machine.
func TestHardwareCounting(t *testing.T) {
	s := perfSampler(t)
	if err := s.Access(); err != nil {
		t.Skipf("hardware events cannot be counted here (PMU %q): %v", s.PMUName(), err)
	}
	defer lockThread()()
	c, err := s.NewCounters("cycles", "instructions")
	if err != nil {
		t.Skipf("Access() allowed hardware counting, but cycles+instructions cannot be opened: %v", err)
	}
	defer c.Close()
	if err := c.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	before := sample(t, c)
	burnCPU(t, 20*time.Millisecond)
	after := sample(t, c)
	cycles, instructions := after[0]-before[0], after[1]-before[1]
	t.Logf("20 ms of CPU: %d cycles, %d instructions", cycles, instructions)
	if after[0] < before[0] || after[1] < before[1] {
		t.Fatalf("totals went down: %v -> %v", before, after)
	}
	if cycles < 1_000_000 || instructions < 1_000_000 {
		t.Errorf("20 ms of busy work counted only %d cycles and %d instructions", cycles, instructions)
	}
}
