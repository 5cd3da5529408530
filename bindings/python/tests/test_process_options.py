"""Process.spawn with options (kp_process_spawn_ex): partial sets and event groups, and
per-event status (kp_process_event_status). perf_event; `cycles` stands for an event this
machine may not count (a VM without a PMU)."""
import sys

import pytest

import libkpc

# A short command that only spends CPU time.
BUSY = ["sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"]
# A short command that writes 2000 fresh pages (2000 page faults, plus its start-up's).
TOUCH = [sys.executable, "-c", "b = bytearray(2000 * 4096)\nfor i in range(0, len(b), 4096): b[i] = 1"]


def cycles_counts_here():
    """Whether the kernel counts cycles for this process, asked with perf_event_open itself,
    not through libkpc: the test below must not decide to skip from the library it tests."""
    import ctypes
    import os
    import platform

    nr = {"x86_64": 298, "aarch64": 241}.get(platform.machine())
    if nr is None:
        pytest.skip(f"no perf_event_open number known for {platform.machine()}")
    # perf_event_attr as the kernel's first version (PERF_ATTR_SIZE_VER0, 64 bytes):
    # type PERF_TYPE_HARDWARE, config PERF_COUNT_HW_CPU_CYCLES, disabled, exclude_kernel, exclude_hv.
    attr = (ctypes.c_uint64 * 8)()
    attr[0] = 0 | (64 << 32)
    attr[1] = 0
    attr[5] = 1 | 1 << 5 | 1 << 6
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(nr), ctypes.byref(attr), 0, -1, -1, ctypes.c_ulong(0))
    if fd < 0:
        return False
    os.close(fd)
    return True


def test_partial_reports_the_event_it_cannot_count(sampler):
    if cycles_counts_here():
        pytest.skip("this machine counts cycles (a direct perf_event_open says so): no event to report as uncounted")
    with libkpc.Process.spawn(sampler, BUSY, "task-clock", "cycles", partial=True) as p:
        assert p.wait() == (0, 0)
        full = p.read_full()
        clock, cycles = full.values
        assert clock > 0
        assert cycles == 0 and full.complete[1] is False
        assert p.event_status(0) == libkpc.EventStatus(libkpc.Status.OK, "")
        status, reason = p.event_status(1)
        assert status is libkpc.Status.EUNAVAILABLE, (status, reason)
        assert reason, "an uncounted event says why"
        assert p.event_statuses() == [p.event_status(0), p.event_status(1)]
        with pytest.raises(libkpc.KpcError) as e:
            p.event_status(2)
        assert e.value.status is libkpc.Status.EINVAL
    # Without partial the same set fails as a whole, with the same code.
    with pytest.raises(libkpc.KpcError) as e:
        libkpc.Process.spawn(sampler, BUSY, "task-clock", "cycles")
    assert e.value.status is libkpc.Status.EUNAVAILABLE and e.value.message


def test_one_group_counts_both_events(sampler):
    with libkpc.Process.spawn(sampler, TOUCH, "task-clock", "page-faults",
                              groups=[0, 0]) as p:
        assert p.wait() == (0, 0)
        clock, faults = p.read()
        assert clock > 0
        assert faults >= 2000, faults
        assert p.event_statuses() == [(libkpc.Status.OK, "")] * 2


def test_bad_groups_are_refused(sampler):
    with pytest.raises(libkpc.KpcError) as e:
        libkpc.Process.spawn(sampler, ["true"], "task-clock", "page-faults", groups=[0, -2])
    assert e.value.status is libkpc.Status.EINVAL
    assert "groups[1]" in e.value.message
    with pytest.raises(libkpc.KpcError) as e:  # caught here: C would read past the list
        libkpc.Process.spawn(sampler, ["true"], "task-clock", "page-faults", groups=[0])
    assert e.value.status is libkpc.Status.EINVAL
    with libkpc.Process.spawn(sampler, ["true"], "task-clock", "page-faults",
                              groups=[None, -1]) as p:  # None and -1: no group
        assert p.wait() == (0, 0)
