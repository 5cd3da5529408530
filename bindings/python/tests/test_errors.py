"""Errors carry the status and libkpc's message."""
import re
from pathlib import Path

import pytest

import libkpc
from conftest import cycles_counts_here

HEADER = Path(__file__).resolve().parents[3] / "include" / "kpc" / "errors.h"


def test_status_matches_the_c_enum():
    c_enum = {name: int(value) for name, value in
              re.findall(r"^\s*KP_(\w+)\s*=\s*(-?\d+)", HEADER.read_text(), re.M)}
    assert c_enum == {s.name: int(s) for s in libkpc.Status}
    assert str(libkpc.Status.EPERM) == "permission denied"
    assert libkpc.Status.EPARTIAL == -17
    assert str(libkpc.Status.EPARTIAL) != "unknown status"
    assert libkpc.Status.EEXEC == -18
    assert str(libkpc.Status.EEXEC) != "unknown status"


def test_limits_and_units_match_the_c_header():
    event_h = (HEADER.parent / "event.h").read_text()
    defines = dict(re.findall(r"^#define (KP_\w+) (\d+)$", event_h, re.M))
    assert int(defines["KP_MAX_EVENTS"]) == libkpc.MAX_EVENTS
    assert int(defines["KP_EVENT_NAME_MAX"]) == libkpc.EVENT_NAME_MAX
    units = {name: int(value) for name, value in
             re.findall(r"^\s*KP_EVENT_UNIT_(\w+)\s*=\s*(\d+)", event_h, re.M)}
    assert units == {u.name: int(u) for u in libkpc.EventUnit}


def test_unknown_event_names_it(sampler):
    with pytest.raises(libkpc.KpcError) as info:
        sampler.counters("no-such-event")
    assert info.value.status is libkpc.Status.EUNKNOWN_EVENT
    assert info.value.code == -8
    assert "no-such-event" in info.value.message
    assert "EUNKNOWN_EVENT" in str(info.value)


def test_hardware_event_is_unavailable_or_counts(sampler):
    # Which of the two is asked of the kernel (a direct perf_event_open), not of libkpc.
    if not cycles_counts_here():  # no PMU (a VM): libkpc says so instead of counting zeros
        with pytest.raises(libkpc.KpcError) as info:
            sampler.counters("cycles")
        assert info.value.status in (libkpc.Status.EUNAVAILABLE, libkpc.Status.EUNSUPPORTED,
                                     libkpc.Status.EPERM)
        assert "cycles" in info.value.message
        return
    with sampler.counters("cycles", "instructions") as c:
        with c.measure() as m:
            sum(range(100_000))
        cycles, instructions = m.counts
        assert instructions > 100_000 and cycles > 0, m.counts
    # For the emulated-PMU guest (tests/pmu/guest/python_hardware.sh), which checks that
    # this branch ran and that cycles = 2^N x instructions there.
    print(f"counted: {instructions} instructions, {cycles} cycles")


def test_duplicate_and_empty_event_lists_are_invalid(sampler):
    for names in (["task-clock", "task-clock"], []):
        with pytest.raises(libkpc.KpcError) as info:
            sampler.counters(names)
        assert info.value.status is libkpc.Status.EINVAL and info.value.message


def test_sampling_before_start_is_a_state_error(sampler):
    with sampler.counters("task-clock") as c:
        with pytest.raises(libkpc.KpcError) as info:
            c.sample()
        assert info.value.status is libkpc.Status.ESTATE and info.value.message


def test_short_buffer(sampler):
    with sampler.counters("task-clock", "page-faults") as c:
        c.start()
        with pytest.raises(libkpc.KpcError) as info:
            c.sample_into((libkpc.counters.ctypes.c_uint64 * 1)())
        assert info.value.status is libkpc.Status.EBUFSIZE


def test_missing_framework_names_the_path():
    with pytest.raises(libkpc.KpcError) as info:
        libkpc.Sampler(libkpc.Backend.KPERF, kperf_path="/nonexistent/kperf",
                       kperfdata_path="/nonexistent/kperfdata")
    assert info.value.status is libkpc.Status.ELOAD
    assert "/nonexistent/kperf" in info.value.message
