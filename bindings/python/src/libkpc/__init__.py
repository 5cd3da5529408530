"""libkpc: per-thread CPU performance counters (cycles, instructions, page faults, ...).

    import libkpc
    with libkpc.Sampler() as sampler, sampler.counters("task-clock", "page-faults") as c:
        with c.measure() as m:
            work()
        print(m.as_dict())

Pure Python over ctypes; the C library is found through KPC_LIBRARY, a copy bundled in the
package, or the system's library path (see libkpc._native). Counters count only the
thread that created them; a Process counts every thread of a process (Process.spawn a
command, or Process.attach to one; pid 0 is this one). Every failure raises KpcError with
the status and libkpc's message.
"""
from ._native import LibraryNotFoundError, library_path
from .counters import Counters, Sample
from .errors import KpcError, Status
from .event import EVENT_NAME_MAX, MAX_EVENTS, Event, EventKind, EventUnit
from .measure import Measurement
from .process import EventStatus, ExitStatus, Process, ProcessSample, Scope, ThreadTotals
from .sampler import Backend, Sampler

__all__ = [
    "EVENT_NAME_MAX", "MAX_EVENTS", "Backend", "Counters", "Event", "EventKind", "EventStatus", "EventUnit", "ExitStatus", "KpcError",
    "LibraryNotFoundError", "Measurement", "Process", "ProcessSample", "Sample", "Sampler",
    "Scope", "Status", "ThreadTotals", "library_path", "version",
]


def version():
    """The loaded C library's version string (kp_version_string)."""
    from . import _native
    return _native.text(_native.lib().kp_version_string())
