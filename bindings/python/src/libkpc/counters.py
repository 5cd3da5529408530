"""Counters: a set of events counted on the thread that created it (kp_thread_t)."""
import collections
import ctypes

from . import _native
from ._handle import OwnedHandle
from .errors import check
from .event import Event
from .measure import Measurement

Sample = collections.namedtuple("Sample", "values complete time_enabled_ns time_running_ns")
Sample.__doc__ = """A full sample: running totals, per event whether it was on a counter the
whole time (False: multiplexed, the value covers time_running_ns of time_enabled_ns)."""


class Counters(OwnedHandle):
    """Events counted on one OS thread: the thread that called ``Sampler.counters()``.

    :meth:`start`, :meth:`stop`, :meth:`sample`, :meth:`sample_into`,
    :meth:`sample_full`, :meth:`calibrate` and :meth:`measure` must be called on that
    thread; from any other they raise KpcError with status EWRONG_THREAD and do nothing.
    Work done by other threads (a thread pool, asyncio executors) is not counted.
    :meth:`close` and the read-only attributes may be used from any thread.

    Values are running totals since the first :meth:`start` (stop pauses them); take
    differences, or use :meth:`measure`. Use it as a context manager or call :meth:`close`.
    """

    @classmethod
    def _create(cls, sampler_handle, names):
        lib = _native.lib()
        c_names = (ctypes.c_char_p * len(names))(*(n.encode("utf-8") for n in names))
        handle = ctypes.c_void_p()
        check(lib.kp_thread_new(ctypes.byref(handle), sampler_handle, c_names, len(names)))
        self = cls.__new__(cls)
        self._own(handle.value)
        self.events = tuple(Event._copy(lib.kp_thread_event_at(self._h, i))
                            for i in range(lib.kp_thread_event_count(self._h)))
        self._n = len(self.events)
        self._buf = self.new_buffer()  # sample() reads into it: no allocation in C or ctypes
        self._sample = lib.kp_thread_sample
        return self

    def __init__(self):
        raise TypeError("make Counters with Sampler.counters(names)")

    _FREE = "kp_thread_free"  # stops counting and frees; any thread
    _CLOSED = "these Counters are closed: make new ones with Sampler.counters()"

    def __len__(self):
        return self._n

    @property
    def names(self):
        return [e.name for e in self.events]

    def start(self):
        """Starts (or resumes) counting. Idempotent. Raises KpcError (EWRONG_THREAD, ESTATE,
        EBUSY, EPERM, EUNAVAILABLE, EKERNEL)."""
        check(_native.lib().kp_thread_start(self._handle()))

    def stop(self):
        """Pauses counting; totals stay readable. Idempotent."""
        check(_native.lib().kp_thread_stop(self._handle()))

    @property
    def is_running(self):
        return bool(_native.lib().kp_thread_is_running(self._handle()))

    def new_buffer(self):
        """A ctypes array with room for one sample, for :meth:`sample_into`."""
        return (ctypes.c_uint64 * self._n)()

    def sample(self):
        """The running totals, as a list in event order. Raises KpcError (ESTATE if never
        started, EWRONG_THREAD, EKERNEL; EPARTIAL when the kernel multiplexed the handle's
        events: the values are partial, use :meth:`sample_full` for the scaling times)."""
        check(self._sample(self._handle(), self._buf, self._n))
        return self._buf[:]

    def sample_into(self, buffer):
        """Writes the running totals into ``buffer`` (from :meth:`new_buffer`) and returns it;
        the cheapest way to sample. EBUFSIZE if the buffer is too short; other errors as
        :meth:`sample`."""
        check(self._sample(self._handle(), buffer, len(buffer)))
        return buffer

    def sample_full(self):
        """A :class:`Sample` with multiplexing information (kp_thread_sample_full). Errors
        as :meth:`sample`, except that multiplexed events are not EPARTIAL here: the
        ``complete`` flags and the times say so."""
        values = self.new_buffer()
        complete = (ctypes.c_uint8 * self._n)()
        enabled, running = ctypes.c_uint64(), ctypes.c_uint64()
        check(_native.lib().kp_thread_sample_full(
            self._handle(), values, complete, self._n, ctypes.byref(enabled),
            ctypes.byref(running)))
        return Sample(values[:], [bool(c) for c in complete], enabled.value, running.value)

    def calibrate(self, rounds=0):
        """What an empty measured region costs each event on this thread: the smallest
        difference over ``rounds`` pairs of back-to-back samples (0 means 100). Needs started
        counters (ESTATE otherwise); EPARTIAL when the events were multiplexed (no offset is
        meaningful). On Apple the fixed counters include each read's kernel
        work (about 17,700 instructions on an M4), which this captures."""
        offsets = self.new_buffer()
        check(_native.lib().kp_thread_calibrate(self._handle(), offsets, self._n, rounds))
        return offsets[:]

    def measure(self, subtract_overhead=False, iterations=1):
        """A context manager counting its block on this thread; see :class:`Measurement`.

        ``with counters.measure() as m: work()`` then ``m.counts`` (event order) or
        ``m.as_dict()``. Starts the counters if they are stopped.
        """
        return Measurement(self, subtract_overhead, iterations)

    def __repr__(self):
        state = "closed" if self._h is None else "counting" if self.is_running else "stopped"
        return f"<libkpc.Counters {', '.join(self.names)} ({state})>"
