//! Event: a copy of what libkpc knows about one countable event.

use crate::ffi;

/// Which kind of counter an event needs (`kp_event_kind_t`).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A fixed-function hardware counter (Apple: cycles, instructions).
    Fixed,
    /// A programmable hardware counter.
    Configurable,
    /// Counted by the OS kernel (task-clock, page-faults, ...).
    Software,
}

/// The unit of an event's count (`kp_event_unit_t`).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventUnit {
    /// A number of occurrences (cycles, page-faults, ...).
    Count,
    /// Time in nanoseconds: task-clock, cpu-clock, recount's user-time and system-time.
    Nanoseconds,
}

/// Most events one [`crate::ThreadSampler`] or [`crate::Process`] counts (`KP_MAX_EVENTS`).
pub const MAX_EVENTS: usize = ffi::KP_MAX_EVENTS;
/// Longest event name accepted, in bytes (`KP_EVENT_NAME_MAX`).
pub const EVENT_NAME_MAX: usize = ffi::KP_EVENT_NAME_MAX;

/// One event, copied out of libkpc's borrowed `kp_event_t`, so it never dangles.
///
/// Events are named, not enumerated: a generic name means the same thing on every backend
/// ("cycles", "instructions", "branch-misses", "l1d-load-misses", "page-faults", ...; see
/// docs/events.md), and a native name is the backend's own ("FIXED_CYCLES",
/// "L1D_CACHE_MISS_LD_NONSPEC" on Apple, "r003c" on Linux).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The name it was looked up by: the generic name for generic events.
    pub name: String,
    /// The backend's own name, e.g. "FIXED_CYCLES" or "PERF_COUNT_HW_CPU_CYCLES".
    pub native_name: String,
    /// One-line description; "" when the backend has none.
    pub description: String,
    /// Which kind of counter it needs; `None` for a kind this crate does not know.
    pub kind: Option<EventKind>,
    /// What its count counts; `None` for a unit this crate does not know.
    pub unit: Option<EventUnit>,
    /// One of libkpc's generic events.
    pub is_generic: bool,
    /// This machine can count it (permission is separate: [`crate::Sampler::access`]).
    pub is_available: bool,
    /// Why it is unavailable, with what to do; "" when available.
    pub unavailable_reason: String,
    /// Apple kpep alias (e.g. "Cycles").
    pub alias: Option<String>,
    /// Apple kpep errata note.
    pub errata: Option<String>,
    /// Apple kpep fallback event name.
    pub fallback: Option<String>,
    /// Bitmap of the hardware counters it may use; 0 when the backend does not say.
    pub counters_mask: u32,
    /// Backend encoding: the kpep selector (Apple), attr.config (Linux).
    pub selector: u64,
    /// The fixed counter it must use, if any.
    pub fixed_counter: Option<u32>,
    /// Whether its count includes work done in kernel mode.
    pub counts_kernel: bool,
}

impl Event {
    /// Copies a non-NULL borrowed `kp_event_t`.
    pub(crate) fn copy(e: *const ffi::kp_event_t) -> Event {
        // SAFETY: `e` is a live event of a live sampler or thread handle; every accessor
        // accepts it and returns static or handle-owned strings, copied here.
        unsafe {
            Event {
                name: ffi::owned(ffi::kp_event_name(e)).unwrap_or_default(),
                native_name: ffi::owned(ffi::kp_event_native_name(e)).unwrap_or_default(),
                description: ffi::owned(ffi::kp_event_description(e)).unwrap_or_default(),
                kind: match ffi::kp_event_kind(e) {
                    0 => Some(EventKind::Fixed),
                    1 => Some(EventKind::Configurable),
                    2 => Some(EventKind::Software),
                    _ => None,
                },
                unit: match ffi::kp_event_unit(e) {
                    0 => Some(EventUnit::Count),
                    1 => Some(EventUnit::Nanoseconds),
                    _ => None,
                },
                is_generic: ffi::kp_event_is_generic(e) == 1,
                is_available: ffi::kp_event_is_available(e) == 1,
                unavailable_reason: ffi::owned(ffi::kp_event_unavailable_reason(e))
                    .unwrap_or_default(),
                alias: ffi::owned(ffi::kp_event_alias(e)),
                errata: ffi::owned(ffi::kp_event_errata(e)),
                fallback: ffi::owned(ffi::kp_event_fallback(e)),
                counters_mask: ffi::kp_event_counters_mask(e),
                selector: ffi::kp_event_selector(e),
                fixed_counter: u32::try_from(ffi::kp_event_fixed_counter(e)).ok(),
                counts_kernel: ffi::kp_event_counts_kernel(e) == 1,
            }
        }
    }
}
