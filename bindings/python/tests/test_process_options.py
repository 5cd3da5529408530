"""Process.spawn with options (kp_process_spawn_ex): partial sets and event groups, and
per-event status (kp_process_event_status). perf_event; `cycles` stands for an event this
machine may not count (a VM without a PMU)."""
import sys

import pytest

import libkpc
from conftest import cycles_counts_here

# A short command that only spends CPU time.
BUSY = ["sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"]
# A short command that writes 2000 fresh pages (2000 page faults, plus its start-up's).
TOUCH = [sys.executable, "-c", "b = bytearray(2000 * 4096)\nfor i in range(0, len(b), 4096): b[i] = 1"]


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
