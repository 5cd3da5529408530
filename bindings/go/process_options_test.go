//go:build linux

package kpc_test

import (
	"math"
	"strconv"
	"testing"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

// spawnWith runs SpawnProcessWith, waits for the command to exit 0, and closes the Process
// when the test ends.
func spawnWith(t *testing.T, s *kpc.Sampler, opts kpc.ProcessOptions, argv []string, names ...string) *kpc.Process {
	t.Helper()
	p, err := s.SpawnProcessWith(opts, argv, names...)
	if err != nil {
		t.Fatalf("SpawnProcessWith(%+v, %v, %v): %v", opts, argv, names, err)
	}
	t.Cleanup(func() { p.Close() })
	if st, err := p.Wait(); err != nil || !st.Success() {
		t.Fatalf("Wait = %v, %v; want exit status 0", st, err)
	}
	return p
}

// cycles has no counter on this VM (no PMU): the event Partial must report, not fail on.
func requireCyclesUnavailable(t *testing.T, s *kpc.Sampler) {
	t.Helper()
	ev, err := s.FindEvent("cycles")
	if err != nil {
		t.Fatalf("FindEvent(cycles): %v", err)
	}
	if ev.Available {
		t.Skip("cycles is countable on this machine (a hardware PMU): the partial test needs an event that is not")
	}
}

func TestPartialReportsTheEventItCannotCount(t *testing.T) {
	w := workloadPath(t)
	s := perfSampler(t)
	requireCyclesUnavailable(t, s)
	const spinMS = 50
	p := spawnWith(t, s, kpc.ProcessOptions{Partial: true},
		[]string{w, "spin", strconv.Itoa(spinMS)}, "task-clock", "cycles")
	full, err := p.ReadFull()
	if err != nil {
		t.Fatalf("ReadFull: %v", err)
	}
	if full.Values[0] < spinMS*1000000 || !full.Complete[0] {
		t.Errorf("task-clock %d ns (complete %v) for a command burning %d ms", full.Values[0], full.Complete[0], spinMS)
	}
	if err := p.EventStatus(0); err != nil {
		t.Errorf("EventStatus(task-clock) = %v, want nil (counted)", err)
	}
	if full.Values[1] != 0 || full.Complete[1] {
		t.Errorf("cycles read %d (complete %v), want 0 and not complete", full.Values[1], full.Complete[1])
	}
	e := requireStatus(t, p.EventStatus(1), kpc.ErrUnavailable, "EventStatus(cycles)")
	if e.Message == "" {
		t.Error("EventStatus(cycles) gives no reason")
	}
	t.Logf("cycles: %v", e)

	requireStatus(t, p.EventStatus(2), kpc.ErrInvalid, "EventStatus(2) of 2 events")
	requireStatus(t, p.EventStatus(-1), kpc.ErrInvalid, "EventStatus(-1)")
}

func TestPartialOffFailsTheWholeSet(t *testing.T) {
	s := perfSampler(t)
	requireCyclesUnavailable(t, s)
	argv := []string{"true"}
	_, err := s.SpawnProcessWith(kpc.ProcessOptions{}, argv, "task-clock", "cycles")
	e := requireStatus(t, err, kpc.ErrUnavailable, "SpawnProcessWith(no Partial, task-clock + cycles)")
	if e.Message == "" {
		t.Error("no message")
	}
	_, err = s.SpawnProcess(argv, "task-clock", "cycles")
	requireStatus(t, err, kpc.ErrUnavailable, "SpawnProcess(task-clock + cycles)")
}

func TestGroupsCountTogether(t *testing.T) {
	w := workloadPath(t)
	s := perfSampler(t)
	const pages = 2000
	p := spawnWith(t, s, kpc.ProcessOptions{Groups: []int{0, 0}},
		[]string{w, "touch", strconv.Itoa(pages)}, "task-clock", "page-faults")
	v := read(t, p)
	if v[0] == 0 {
		t.Error("task-clock 0 in a group")
	}
	if v[1] < pages || v[1] > pages+workloadStartupFaults {
		t.Errorf("%d page faults in a group, for a command touching %d pages", v[1], pages)
	}
	for i := range v {
		if err := p.EventStatus(i); err != nil {
			t.Errorf("EventStatus(%d) = %v", i, err)
		}
	}
}

func TestGroupsInvalidAreRefused(t *testing.T) {
	s := perfSampler(t)
	argv := []string{"true"}
	// libkpc's check: a group number below -1.
	_, err := s.SpawnProcessWith(kpc.ProcessOptions{Groups: []int{-2, 0}}, argv, "task-clock", "page-faults")
	requireStatus(t, err, kpc.ErrInvalid, "Groups {-2, 0}")
	// The binding's checks: one entry per event, each fitting kp_process_options_t's int32_t.
	_, err = s.SpawnProcessWith(kpc.ProcessOptions{Groups: []int{0}}, argv, "task-clock", "page-faults")
	requireStatus(t, err, kpc.ErrInvalid, "Groups {0} for two events")
	if strconv.IntSize > 32 {
		tooBig := int64(math.MaxInt32) + 1
		_, err = s.SpawnProcessWith(kpc.ProcessOptions{Groups: []int{0, int(tooBig)}}, argv, "task-clock", "page-faults")
		requireStatus(t, err, kpc.ErrInvalid, "Groups {0, 2^31}")
	}
}
