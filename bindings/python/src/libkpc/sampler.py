"""Sampler: one counting session (backend, CPU, event database); makes Counters."""
import ctypes
import enum

from . import _native
from ._handle import OwnedHandle
from .counters import Counters
from .errors import check
from .event import Event


class Backend(enum.IntEnum):
    """kp_backend_t. AUTO follows KPC_BACKEND, then the platform's own."""

    AUTO = 0
    KPERF = 1
    PERF_EVENT = 2
    RECOUNT = 3  # macOS without root: per-thread cycles and instructions (and P/E split)


def _encode(path):
    return None if path is None else str(path).encode("utf-8")


class Sampler(OwnedHandle):
    """A libkpc session (``kp_sampler_t``). Make one per process.

    ``Sampler()`` uses KPC_BACKEND, KPC_KPERF_PATH and KPC_KPERFDATA_PATH, else the platform
    default (kperf on macOS, perf_event on Linux); the arguments override them. Use it as a
    context manager or call :meth:`close`; counters made from it keep working after it is
    closed. Every method may be called from any thread.

    Raises :class:`~libkpc.KpcError` (EINVAL, EUNSUPPORTED, ELOAD, ELAYOUT, EFRAMEWORK).
    """

    def __init__(self, backend=Backend.AUTO, kperf_path=None, kperfdata_path=None):
        lib = _native.lib()
        opts = _native.SamplerOptions()
        check(lib.kp_sampler_options_init(ctypes.byref(opts), _native.SAMPLER_OPTIONS_VERSION))
        opts.backend = int(backend)
        opts.kperf_path = _encode(kperf_path)
        opts.kperfdata_path = _encode(kperfdata_path)
        handle = ctypes.c_void_p()
        check(lib.kp_sampler_new(ctypes.byref(handle), ctypes.byref(opts)))
        self._own(handle.value)

    _FREE = "kp_sampler_free"
    _CLOSED = "this Sampler is closed: create a new libkpc.Sampler()"

    @property
    def backend(self):
        return Backend(_native.lib().kp_sampler_backend(self._handle()))

    @property
    def backend_name(self):
        """"kperf", "perf_event" or "recount"."""
        return _native.text(_native.lib().kp_sampler_backend_name(self._handle()))

    @property
    def backend_reason(self):
        """Why this session uses its backend (kp_sampler_backend_reason), e.g. "named by KPC_BACKEND"."""
        return _native.text(_native.lib().kp_sampler_backend_reason(self._handle()))

    @property
    def cpu_id(self):
        return _native.text(_native.lib().kp_sampler_cpu_id(self._handle()))

    @property
    def cpu_name(self):
        return _native.text(_native.lib().kp_sampler_cpu_name(self._handle()))

    @property
    def pmu_name(self):
        return _native.text(_native.lib().kp_sampler_pmu_name(self._handle()))

    @property
    def counter_counts(self):
        """(fixed, configurable) hardware counters. Raises KpcError EUNSUPPORTED when the OS
        does not tell how many there are (the message says why)."""
        fixed, conf = ctypes.c_uint32(), ctypes.c_uint32()
        check(_native.lib().kp_sampler_counter_count(
            ctypes.byref(fixed), ctypes.byref(conf), self._handle()))
        return fixed.value, conf.value

    def access(self):
        """Raises KpcError (EPERM, EBUSY, EUNSUPPORTED, ESTATE) unless hardware events can be
        counted now; the message says what to do."""
        check(_native.lib().kp_sampler_access(self._handle()))

    def release(self):
        """Gives the hardware counters back; later counting fails with ESTATE. Idempotent."""
        check(_native.lib().kp_sampler_release(self._handle()))

    def events(self):
        """Every event of the database, as Event copies."""
        lib, h = _native.lib(), self._handle()
        return [Event._copy(lib.kp_sampler_event_at(h, i))
                for i in range(lib.kp_sampler_event_count(h))]

    def find_event(self, name):
        """The event of that generic or native name; KpcError EUNKNOWN_EVENT if none."""
        ptr = ctypes.c_void_p()
        check(_native.lib().kp_sampler_event_find(
            ctypes.byref(ptr), self._handle(), name.encode("utf-8")))
        return Event._copy(ptr.value)

    def counters(self, *names):
        """Counters for these events, counting the calling thread only (see Counters).

        ``sampler.counters("task-clock", "page-faults")`` or ``sampler.counters(list)``.
        Raises KpcError: EINVAL, EUNKNOWN_EVENT, EUNAVAILABLE, ECONFLICT, EPERM, EBUSY, ...
        """
        if len(names) == 1 and not isinstance(names[0], str):
            names = tuple(names[0])
        return Counters._create(self._handle(), names)

    def __repr__(self):
        if self._h is None:
            return "<libkpc.Sampler closed>"
        return f"<libkpc.Sampler {self.backend_name} on {self.cpu_name}>"
