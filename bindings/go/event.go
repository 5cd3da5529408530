package kpc

import (
	"strconv"

	"github.com/libkpc/libkpc/bindings/go/internal/ckpc"
)

// Kind says which kind of counter an event needs (kp_event_kind_t).
type Kind int

// The event kinds, with the values of kp_event_kind_t.
const (
	Fixed        Kind = 0 // a fixed-function hardware counter (Apple: cycles, instructions)
	Configurable Kind = 1 // a programmable hardware counter
	Software     Kind = 2 // counted by the OS kernel (task-clock, page-faults, ...)
)

// String returns "fixed", "configurable", "software", or "Kind(n)".
func (k Kind) String() string {
	switch k {
	case Fixed:
		return "fixed"
	case Configurable:
		return "configurable"
	case Software:
		return "software"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// The limits of kpc/event.h.
const (
	MaxEvents    = ckpc.KP_MAX_EVENTS     // most events one Counters or Process counts
	EventNameMax = ckpc.KP_EVENT_NAME_MAX // longest event name accepted, in bytes
)

// Unit is the unit of an event's count (kp_event_unit_t).
type Unit int

// The units, with the values of kp_event_unit_t.
const (
	Count       Unit = 0 // a number of occurrences (cycles, page-faults, ...)
	Nanoseconds Unit = 1 // time: task-clock, cpu-clock, recount's user-time and system-time
)

// String returns "count", "ns", or "Unit(n)".
func (u Unit) String() string {
	switch u {
	case Count:
		return "count"
	case Nanoseconds:
		return "ns"
	}
	return "Unit(" + strconv.Itoa(int(u)) + ")"
}

// Event describes one countable event. It is a plain value copied out of libkpc when it is
// returned (the C kp_event_t is borrowed from its sampler), so it stays valid after the
// Sampler or Counters it came from is closed, and may be shared between goroutines.
type Event struct {
	Name              string // name it was looked up by; the generic name for generic events
	NativeName        string // the backend's own name ("FIXED_CYCLES", "PERF_COUNT_SW_TASK_CLOCK")
	Description       string // one line; "" when the backend has none
	Kind              Kind
	Unit              Unit   // what the count counts: occurrences, or nanoseconds for the clocks
	Generic           bool   // one of libkpc's generic events (docs/events.md)
	Available         bool   // countable on this machine (permission is separate: Sampler.Access)
	UnavailableReason string // why not, with what to do; "" when Available
	Alias             string // Apple kpep alias; "" when none
	Errata            string // Apple kpep errata note; "" when none
	Fallback          string // Apple kpep fallback event name; "" when none
	CountersMask      uint32 // hardware counters the event may use (bit 0 = counter 0); 0 = not said
	Selector          uint64 // backend encoding: kpep selector (Apple), perf_event attr.config (Linux)
	FixedCounter      int    // index of the fixed counter it must use, or -1
}

// eventFrom copies a borrowed kp_event_t into an Event. The caller keeps the owning handle
// alive (and unclosed) for the duration of the call.
func eventFrom(e ckpc.Kp_event) Event {
	return Event{
		Name:              ckpc.Kp_event_name(e),
		NativeName:        ckpc.Kp_event_native_name(e),
		Description:       ckpc.Kp_event_description(e),
		Kind:              Kind(ckpc.Kp_event_kind(e)),
		Unit:              Unit(ckpc.Kp_event_unit(e)),
		Generic:           ckpc.Kp_event_is_generic(e) != 0,
		Available:         ckpc.Kp_event_is_available(e) != 0,
		UnavailableReason: ckpc.Kp_event_unavailable_reason(e),
		Alias:             ckpc.Kp_event_alias(e),
		Errata:            ckpc.Kp_event_errata(e),
		Fallback:          ckpc.Kp_event_fallback(e),
		CountersMask:      uint32(ckpc.Kp_event_counters_mask(e)),
		Selector:          ckpc.Kp_event_selector(e),
		FixedCounter:      ckpc.Kp_event_fixed_counter(e),
	}
}
