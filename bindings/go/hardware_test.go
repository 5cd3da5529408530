//go:build linux

package kpc_test

import (
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// perf_event_attr as the kernel's first version (PERF_ATTR_SIZE_VER0, 64 bytes).
type perfEventAttr struct {
	Type         uint32
	Size         uint32
	Config       uint64
	SamplePeriod uint64
	SampleType   uint64
	ReadFormat   uint64
	Flags        uint64 // bit 0 disabled, 5 exclude_kernel, 6 exclude_hv
	WakeupEvents uint32
	BPType       uint32
	Config1      uint64
}

// pmuCountsInstructions asks the kernel directly, without libkpc, whether this thread can
// count hardware instructions (user space only, which perf_event_paranoid 2 allows). The
// test under it must not decide to skip from the library it tests.
func pmuCountsInstructions() error {
	attr := perfEventAttr{
		Type:   0, // PERF_TYPE_HARDWARE
		Config: 1, // PERF_COUNT_HW_INSTRUCTIONS
		Flags:  1<<0 | 1<<5 | 1<<6,
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	minusOne := -1
	fd, _, errno := syscall.Syscall6(syscall.SYS_PERF_EVENT_OPEN, uintptr(unsafe.Pointer(&attr)),
		0, uintptr(minusOne), uintptr(minusOne), 0, 0)
	if errno != 0 {
		return errno
	}
	syscall.Close(int(fd))
	return nil
}

// Counts cycles and instructions where the machine has a usable PMU; skipped (with the
// kernel's reason) where a direct perf_event_open cannot count instructions, e.g. in a
// virtual machine. Where it can, any libkpc error is a failure.
func TestHardwareCounting(t *testing.T) {
	if err := pmuCountsInstructions(); err != nil {
		t.Skipf("this machine cannot count hardware instructions: perf_event_open(instructions): %v", err)
	}
	s := perfSampler(t)
	if err := s.Access(); err != nil {
		t.Fatalf("perf_event_open counts instructions here, yet Access() refused (PMU %q): %v", s.PMUName(), err)
	}
	defer lockThread()()
	c, err := s.NewCounters("cycles", "instructions")
	if err != nil {
		t.Fatalf("perf_event_open counts instructions here, yet NewCounters(cycles, instructions): %v", err)
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
