"""Event: a copy of what libkpc knows about one countable event."""
import dataclasses
import enum
from typing import Optional

from . import _native


class EventKind(enum.IntEnum):
    """kp_event_kind_t: which kind of counter an event needs."""

    FIXED = 0
    CONFIGURABLE = 1
    SOFTWARE = 2


class EventUnit(enum.IntEnum):
    """kp_event_unit_t: what an event's count counts."""

    COUNT = 0  # occurrences (cycles, page-faults, ...)
    NANOSECONDS = 1  # time: task-clock, cpu-clock, recount's user-time and system-time


#: KP_MAX_EVENTS: most events one Counters or Process counts.
MAX_EVENTS = 32
#: KP_EVENT_NAME_MAX: longest event name accepted, in bytes of UTF-8.
EVENT_NAME_MAX = 256


@dataclasses.dataclass(frozen=True)
class Event:
    """One event, copied out of libkpc's borrowed ``kp_event_t``: it never dangles."""

    name: str
    native_name: str
    description: str
    kind: EventKind
    unit: EventUnit
    is_generic: bool
    is_available: bool
    unavailable_reason: str  # "" when available; otherwise why, and what to do
    alias: Optional[str]
    errata: Optional[str]
    fallback: Optional[str]
    counters_mask: int
    selector: int
    fixed_counter: int  # -1 unless the event must use one fixed counter
    counts_kernel: bool  # whether the count includes kernel-mode work (kp_event_counts_kernel)

    @classmethod
    def _copy(cls, ptr):
        lib, text = _native.lib(), _native.text
        return cls(
            name=text(lib.kp_event_name(ptr)),
            native_name=text(lib.kp_event_native_name(ptr)),
            description=text(lib.kp_event_description(ptr)),
            kind=EventKind(lib.kp_event_kind(ptr)),
            unit=EventUnit(lib.kp_event_unit(ptr)),
            is_generic=bool(lib.kp_event_is_generic(ptr)),
            is_available=bool(lib.kp_event_is_available(ptr)),
            unavailable_reason=text(lib.kp_event_unavailable_reason(ptr)),
            alias=text(lib.kp_event_alias(ptr)),
            errata=text(lib.kp_event_errata(ptr)),
            fallback=text(lib.kp_event_fallback(ptr)),
            counters_mask=lib.kp_event_counters_mask(ptr),
            selector=lib.kp_event_selector(ptr),
            fixed_counter=lib.kp_event_fixed_counter(ptr),
            counts_kernel=lib.kp_event_counts_kernel(ptr) == 1,
        )
