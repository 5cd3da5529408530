"""Process: events counted for a whole process, every thread of it (kp_process_t)."""
import collections
import ctypes
import enum
import threading

from . import _native
from ._handle import OwnedHandle
from .errors import KpcError, Status, check
from .event import Event


class Scope(enum.IntEnum):
    """kp_process_scope_t: what one event of a :class:`Process` covers."""

    TREE = 0      # the process, its threads, and the threads and processes it starts (Linux)
    PROCESS = 1   # the process and its threads only (Apple recount: the kernel's accounting)
    SYSTEM = 2    # every CPU: everything the machine ran meanwhile (system_wide; Apple kperf)


ExitStatus = collections.namedtuple("ExitStatus", "exit_code signal")
ExitStatus.__doc__ = """How a spawned command ended: ``exit_code`` (0-255, or -1 when a
signal killed it) and ``signal`` (the signal number, or 0)."""

ProcessSample = collections.namedtuple(
    "ProcessSample", "values complete time_enabled_ns time_running_ns")
ProcessSample.__doc__ = """:meth:`Process.read_full`: one list per field, in event order.
``complete[i]`` is False when the kernel multiplexed event i (its value then covers
``time_running_ns[i]`` of ``time_enabled_ns[i]``), and on Apple's recount backend when an
attached process was reaped before its final totals were read (the value is the last read);
the times are summed over the threads counted, and 0 where the backend does not measure them
(Apple)."""


EventStatus = collections.namedtuple("EventStatus", "status reason")
EventStatus.__doc__ = """:meth:`Process.event_status`: whether one event is counted.
``status`` is ``Status.OK`` when it is, else the code it failed with (e.g.
``Status.EUNAVAILABLE``: this machine cannot count it); ``reason`` is "" when counted, else
libkpc's text saying why, naming the fix where there is one."""


ThreadTotals = collections.namedtuple("ThreadTotals", "tid values complete")
ThreadTotals.__doc__ = """:meth:`Process.read_thread`: one per-thread counter. ``tid`` is the
thread's id (Linux gettid()); ``values`` what it counted plus the threads and processes it
created while counted, in event order; ``complete[i]`` False when event i was multiplexed
or is not counted."""


def _names(args, what):
    """``f("a", "b")`` or ``f(["a", "b"])`` as a tuple of str."""
    if len(args) == 1 and not isinstance(args[0], str):
        args = tuple(args[0])
    for a in args:
        if not isinstance(a, str):
            raise TypeError(f"{what} must be str, not {type(a).__name__}")
    return args


def _c_strings(texts, terminated=False):
    """A ctypes char* array of the UTF-8 texts (NULL-terminated when asked)."""
    extra = 1 if terminated else 0
    return (ctypes.c_char_p * (len(texts) + extra))(*(t.encode("utf-8") for t in texts))


def _options(count, partial, groups):
    """kp_process_options_t for the keyword arguments, and the groups array it points to
    (keep both alive through the call); (None, None) when neither is given."""
    if not partial and groups is None:
        return None, None
    opts = _native.ProcessOptions()
    check(_native.lib().kp_process_options_init(ctypes.byref(opts),
                                                _native.PROCESS_OPTIONS_VERSION))
    if partial:
        opts.flags = _native.PROCESS_PARTIAL
    if groups is None:
        return opts, None
    groups = [-1 if g is None else g for g in groups]
    if len(groups) != count:
        # libkpc reads one entry per event: a shorter list would be read past its end.
        raise KpcError(int(Status.EINVAL),
                       f"groups has {len(groups)} entries for {count} events; give one per "
                       "event (a group number >= 0, or -1 or None for none)")
    c_groups = (ctypes.c_int32 * count)(*groups)
    opts.groups = ctypes.cast(c_groups, ctypes.POINTER(ctypes.c_int32))
    return opts, c_groups


class Process(OwnedHandle):
    """Events counted for a whole process: every thread of it, and on Linux the threads
    and processes it starts (see :attr:`scopes`).

    Made by :meth:`spawn` (a command, counted from its exec), :meth:`attach` (a running
    process; pid 0 is this Python process, every thread of it) or :meth:`system_wide`
    (every CPU). Counting runs from then on; :meth:`stop` pauses and :meth:`start`
    resumes. :meth:`read` gives the running totals while the process runs and after it
    ends; :meth:`read_thread` one thread's share of them.

    Unlike :class:`Counters`, every method may be called from any thread, and one thread
    may :meth:`wait` while others read, stop or start. :meth:`close` (also on leaving a
    ``with`` block) waits for calls in progress, including a :meth:`wait`, then frees the
    handle: a spawned command that was not waited for is killed then (to stop one early,
    send it a signal with ``os.kill(p.pid, ...)`` and wait). An attached process keeps
    running, no longer counted.
    """

    _FREE = "kp_process_free"  # stops counting; kills and reaps a command not waited for
    _CLOSED = "this Process is closed"

    def __init__(self):
        raise TypeError("make a Process with Process.spawn(), Process.attach() or "
                        "Process.system_wide()")

    @classmethod
    def spawn(cls, sampler, argv, *events, partial=False, groups=None):
        """Starts the command ``argv`` (a list: the program, looked up in PATH, then its
        arguments) and counts ``events`` in it from its exec on.

        ``Process.spawn(sampler, ["make", "-j8"], "task-clock", "page-faults")``.

        ``partial=True`` (KP_PROCESS_PARTIAL): an event that cannot be counted does not
        fail the call; it reads 0 and :meth:`event_status` says why. ``groups``: one entry
        per event, a group number (>= 0) or -1 / None for none; the events of one group
        are scheduled on the PMU together, so they count over the same time.

        Raises KpcError: EINVAL (no events or argv, a duplicate, a group number below -1,
        a ``groups`` list of another length than the events, or the command cannot be
        run: the message names the program and the exec error), EUNKNOWN_EVENT,
        EUNAVAILABLE, ECONFLICT, EPERM, EBUSY, EUNSUPPORTED, ESTATE, EKERNEL, ...
        """
        argv = list(argv) if not isinstance(argv, str) else [argv]
        for a in argv:
            if not isinstance(a, str):
                raise TypeError(f"argv items must be str, not {type(a).__name__}")
        names = _names(events, "event names")
        c_argv = _c_strings(argv, terminated=True)
        if not argv:
            c_argv = (ctypes.c_char_p * 1)()  # just the NULL: libkpc rejects it (EINVAL)
        opts, _groups = _options(len(names), partial, groups)
        handle = ctypes.c_void_p()
        check(_native.lib().kp_process_spawn_ex(
            ctypes.byref(handle), sampler._handle(), _c_strings(names), len(names), c_argv,
            None if opts is None else ctypes.byref(opts)))
        return cls._wrap(handle.value)

    @classmethod
    def attach(cls, sampler, *events, pid=0, partial=False, groups=None):
        """Counts ``events`` in the running process ``pid`` from now on; pid 0 (the
        default) is this process, every thread of it. ``partial`` and ``groups`` as for
        :meth:`spawn` (Linux: a group is one perf_event group per counted thread).

        Raises KpcError: EINVAL (no such process; a negative pid: every CPU is
        :meth:`system_wide`; a bad event list or group), EPERM (not allowed to count it:
        the message says what to change; Apple recount: it runs as another user),
        EUNSUPPORTED (the backend cannot count a process, e.g. recount's cycles in a macOS
        VM), EUNKNOWN_EVENT, EUNAVAILABLE, EKERNEL (too many open files), ...
        """
        pid = int(pid)
        if pid < 0:
            raise KpcError(int(Status.EINVAL),
                           f"Process.attach: pid {pid} is negative; give a process id, or 0 for "
                           "this process (every CPU: Process.system_wide)")
        return cls._attach(sampler, events, pid, partial, groups)

    @classmethod
    def system_wide(cls, sampler, *events, partial=False, groups=None):
        """Counts ``events`` on every CPU, whatever runs there, from now on
        (kp_process_attach_ex with KP_PROCESS_SYSTEM_WIDE). Every scope is
        ``Scope.SYSTEM``; ``pid`` is -1, :meth:`wait` raises ESTATE and
        :attr:`thread_count` is 0. ``partial`` and ``groups`` as for :meth:`spawn`
        (Linux: a group is one perf_event group per CPU).

        Raises KpcError: EPERM (Linux: needs kernel.perf_event_paranoid <= 0, CAP_PERFMON
        or root; the message names the setting), EUNSUPPORTED (Apple's recount backend:
        use kperf as root), and the event-list errors of :meth:`attach`.
        """
        return cls._attach(sampler, events, _native.PROCESS_SYSTEM_WIDE, partial, groups)

    @classmethod
    def _attach(cls, sampler, events, pid, partial, groups):
        names = _names(events, "event names")
        opts, _groups = _options(len(names), partial, groups)
        handle = ctypes.c_void_p()
        check(_native.lib().kp_process_attach_ex(
            ctypes.byref(handle), sampler._handle(), _c_strings(names), len(names), pid,
            None if opts is None else ctypes.byref(opts)))
        return cls._wrap(handle.value)

    @classmethod
    def _wrap(cls, handle):
        lib = _native.lib()
        self = cls.__new__(cls)
        self._own(handle)
        self._busy = 0  # calls in progress; close() waits for them
        # A reason from kp_process_event_status lives until the handle's next read: reads
        # and status look-ups take turns so that it is copied before another read.
        self._reading = threading.Lock()
        self._cond = threading.Condition(self._lock)
        n = lib.kp_process_event_count(handle)
        self.events = tuple(Event._copy(lib.kp_process_event_at(handle, i)) for i in range(n))
        self.scopes = tuple(Scope(lib.kp_process_event_scope(handle, i)) for i in range(n))
        self.pid = lib.kp_process_pid(handle)
        return self

    def _call(self, fn, *args):
        """fn(handle, *args) with the handle kept alive until it returns."""
        with self._cond:
            if self._h is None:
                raise ValueError(self._CLOSED)
            self._busy += 1
            h = self._h
        try:
            return fn(h, *args)
        finally:
            with self._cond:
                self._busy -= 1
                if self._busy == 0:
                    self._cond.notify_all()

    def __len__(self):
        return len(self.events)

    @property
    def names(self):
        return [e.name for e in self.events]

    def start(self):
        """Resumes counting after :meth:`stop`. Idempotent. Raises KpcError (ESTATE: sampler
        released; EPERM: recount, the process now runs as another user; EBUSY; EKERNEL)."""
        check(self._call(_native.lib().kp_process_start))

    def stop(self):
        """Pauses counting in every thread and child of the process. Idempotent. Raises
        KpcError (EKERNEL; on recount EPERM or EKERNEL when the totals could not be read at
        the stop: it stops anyway, keeping the totals last read, flagged incomplete)."""
        check(self._call(_native.lib().kp_process_stop))

    @property
    def is_counting(self):
        """True while counting (made, and not stopped)."""
        return bool(self._call(_native.lib().kp_process_is_counting))

    def read(self):
        """The running totals, as a list in event order, while the process runs and after
        it ends. On Apple's recount backend an attached process that its parent reaped before
        its final totals were read keeps the totals last read (``complete`` False in
        :meth:`read_full`). Raises KpcError (ESTATE: sampler released; EPERM: recount, the
        process runs as another user; EKERNEL)."""
        values = (ctypes.c_uint64 * len(self.events))()
        with self._reading:
            check(self._call(_native.lib().kp_process_read, values, len(values)))
        return values[:]

    def read_full(self):
        """A :class:`ProcessSample`: the totals plus, per event, multiplexing information."""
        n = len(self.events)
        values, complete = (ctypes.c_uint64 * n)(), (ctypes.c_uint8 * n)()
        enabled, running = (ctypes.c_uint64 * n)(), (ctypes.c_uint64 * n)()
        with self._reading:
            check(self._call(_native.lib().kp_process_read_full, values, complete, n,
                             enabled, running))
        return ProcessSample(values[:], [bool(c) for c in complete], enabled[:], running[:])

    def event_status(self, index):
        """An :class:`EventStatus`: whether event ``index`` is counted, and if not why, as
        known at creation or the last read (some failures show only when reading). Without
        ``partial=True`` every event is counted. Raises KpcError EINVAL out of range."""
        status, reason = ctypes.c_int(), ctypes.c_char_p()
        with self._reading:
            check(self._call(_native.lib().kp_process_event_status, index,
                             ctypes.byref(status), ctypes.byref(reason)))
            text = _native.text(reason.value)
        try:
            code = Status(status.value)
        except ValueError:
            code = status.value
        return EventStatus(code, text)

    def event_statuses(self):
        """:meth:`event_status` of every event, in event order."""
        return [self.event_status(i) for i in range(len(self.events))]

    @property
    def thread_count(self):
        """Number of per-thread counters, for :meth:`read_thread`; fixed when the handle is
        made. Linux: an attached process has one per thread it had at the attach, a spawned
        command 1 (its first thread); 0 system-wide and on Apple."""
        return self._call(_native.lib().kp_process_thread_count)

    def read_thread(self, index):
        """A :class:`ThreadTotals`: the totals of per-thread counter ``index``. The rows add
        up to :meth:`read` for events counted on every thread; a thread that ended keeps
        its final totals. Raises KpcError: EINVAL (``index`` not below
        :attr:`thread_count`), ESTATE (sampler released), EKERNEL."""
        n = len(self.events)
        tid, values, complete = ctypes.c_int32(), (ctypes.c_uint64 * n)(), (ctypes.c_uint8 * n)()
        with self._reading:
            check(self._call(_native.lib().kp_process_read_thread, index, ctypes.byref(tid),
                             values, complete, n))
        return ThreadTotals(tid.value, values[:], [bool(c) for c in complete])

    def read_threads(self):
        """:meth:`read_thread` of every per-thread counter, in order."""
        return [self.read_thread(i) for i in range(self.thread_count)]

    def as_dict(self):
        """:meth:`read` as {event name: total}."""
        return dict(zip(self.names, self.read()))

    def wait(self):
        """Waits for a spawned command to end and reaps it; returns an :class:`ExitStatus`.
        Returns at once, with the same result, once it has ended. Counting is left as it is.
        Raises KpcError ESTATE for an attached process (libkpc did not start it)."""
        code, sig = ctypes.c_int(), ctypes.c_int()
        check(self._call(_native.lib().kp_process_wait, ctypes.byref(code), ctypes.byref(sig)))
        return ExitStatus(code.value, sig.value)

    def close(self):
        """Stops counting and frees the handle (kp_process_free), after any call in progress
        on another thread returns. A spawned command not waited for is killed and reaped.
        Idempotent; any thread."""
        with self._cond:
            h, self._h = self._h, None
            while self._busy:
                self._cond.wait()
        if h is not None:
            _native.lib().kp_process_free(h)

    def __repr__(self):
        if self._h is None:
            return f"<libkpc.Process pid {self.pid} closed>"
        state = "counting" if self.is_counting else "stopped"
        return f"<libkpc.Process pid {self.pid}: {', '.join(self.names)} ({state})>"
