//go:build linux

package kpc_test

import (
	"testing"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

func TestEventsContainTaskClock(t *testing.T) {
	s := perfSampler(t)
	events := s.Events()
	if len(events) == 0 {
		t.Fatal("Events() is empty")
	}
	var found *kpc.Event
	for i := range events {
		if events[i].Name == "task-clock" {
			found = &events[i]
		}
	}
	if found == nil {
		t.Fatalf("task-clock is not among the %d events", len(events))
	}
	if found.Kind != kpc.Software || !found.Available || !found.Generic || found.UnavailableReason != "" {
		t.Errorf("task-clock: %+v; want a generic, available software event", *found)
	}
	if found.Unit != kpc.Nanoseconds {
		t.Errorf("task-clock Unit = %v, want ns", found.Unit)
	}
	if found.FixedCounter != -1 {
		t.Errorf("task-clock FixedCounter = %d, want -1", found.FixedCounter)
	}
	// The slice is a copy: changing it does not change the database.
	events[0].Name = "scribbled"
	if s.Events()[0].Name == "scribbled" {
		t.Errorf("Events() returned shared storage")
	}
}

func TestEventsFind(t *testing.T) {
	s := perfSampler(t)
	e, err := s.FindEvent("page-faults")
	if err != nil {
		t.Fatalf("FindEvent(page-faults): %v", err)
	}
	if e.Name != "page-faults" || e.Kind != kpc.Software || e.Unit != kpc.Count || !e.Available || e.NativeName == "" {
		t.Errorf("page-faults: %+v", e)
	}
	s.Close()
	// A plain copy: still readable after its sampler is gone.
	if e.Name != "page-faults" || e.Kind.String() != "software" {
		t.Errorf("event changed after Close: %+v", e)
	}
}

func TestEventsOfCounters(t *testing.T) {
	s := perfSampler(t)
	defer lockThread()()
	c := newCounters(t, s, "page-faults", "task-clock")
	ev := c.Events()
	if len(ev) != 2 || c.Len() != 2 || ev[0].Name != "page-faults" || ev[1].Name != "task-clock" {
		t.Fatalf("Events() = %+v, want page-faults, task-clock in order", ev)
	}
}

func TestEventsUnitString(t *testing.T) {
	for u, want := range map[kpc.Unit]string{kpc.Count: "count", kpc.Nanoseconds: "ns", kpc.Unit(7): "Unit(7)"} {
		if u.String() != want {
			t.Errorf("Unit(%d).String() = %q, want %q", int(u), u.String(), want)
		}
	}
}

func TestEventsKindString(t *testing.T) {
	for k, want := range map[kpc.Kind]string{kpc.Fixed: "fixed", kpc.Configurable: "configurable",
		kpc.Software: "software", kpc.Kind(9): "Kind(9)"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), k.String(), want)
		}
	}
}
