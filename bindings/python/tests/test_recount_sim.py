"""The recount backend (macOS without root) against the simulated libSystem (tests/recount_sim).

CTest's python_recount_sim sets KPC_BACKEND=recount, KPC_LIBSYSTEM_PATH (librecount_sim.so)
and KPC_TEST_RCSIM_NOSELFCOUNTS (the variant without thread_selfcounts); without them these
tests skip, saying so.

The simulator's model (tests/recount_sim/README.md): cycles = the thread's CPU ns x 3,
instructions = cycles x 2, a share RCSIM_P_SHARE (default 0.75) of both on P cores. Another
simulated machine: set its RCSIM_* variable and call the simulator's rcsim_reset(), loaded
from the very library libkpc loads (the same instance)."""
import ctypes
import os
import threading
import time

import pytest

import libkpc
from conftest import burn_cpu

pytestmark = pytest.mark.skipif(
    os.environ.get("KPC_BACKEND") != "recount" or not os.environ.get("KPC_LIBSYSTEM_PATH"),
    reason="set KPC_BACKEND=recount and KPC_LIBSYSTEM_PATH to librecount_sim.so "
           "(ctest -R python_recount_sim does)")

CYCLES_PER_NS = 3
INSTRUCTIONS_PER_CYCLE = 2


@pytest.fixture
def simulate(monkeypatch):
    """simulate(NAME=value, ...): another simulated machine for this test."""
    sim = ctypes.CDLL(os.environ["KPC_LIBSYSTEM_PATH"])

    def apply(**settings):
        for name, value in settings.items():
            monkeypatch.setenv(name, str(value))
        sim.rcsim_reset()

    yield apply
    monkeypatch.undo()
    sim.rcsim_reset()


def test_the_environment_selects_recount_and_says_why():
    with libkpc.Sampler() as s:
        assert s.backend is libkpc.Backend.RECOUNT and int(s.backend) == 3
        assert s.backend_name == "recount"
        assert s.backend_reason == "named by KPC_BACKEND=recount"
        s.access()  # no root needed
    with libkpc.Sampler(libkpc.Backend.PERF_EVENT) as s:
        assert "named by the caller" in s.backend_reason


def test_cycles_are_three_times_the_threads_cpu_time():
    with libkpc.Sampler() as s, s.counters("cycles", "instructions") as c:
        c.start()
        cpu0 = time.thread_time_ns()
        before = c.sample()
        burn_cpu(0.03)
        after = c.sample()
        cpu = time.thread_time_ns() - cpu0
    for v in (before, after):
        assert v[1] == INSTRUCTIONS_PER_CYCLE * v[0]
    cycles = after[0] - before[0]
    # The samples lie inside the measured interval: a little less, never more.
    assert CYCLES_PER_NS * cpu * 0.95 <= cycles <= CYCLES_PER_NS * cpu * 1.001, (cycles, cpu)


def test_performance_and_efficiency_add_up_to_the_total(simulate):
    simulate(RCSIM_P_SHARE="0.65")
    with libkpc.Sampler() as s, s.counters("cycles", "p-cycles", "e-cycles", "instructions",
                                           "p-instructions", "e-instructions") as c:
        c.start()
        burn_cpu(0.02)
        v = c.sample()
    assert v[1] + v[2] == v[0] and v[4] + v[5] == v[3], v
    assert v[1] / v[0] == pytest.approx(0.65, abs=0.01)
    assert v[4] / v[3] == pytest.approx(0.65, abs=0.01)


def test_one_perf_level_puts_everything_on_p(simulate):
    simulate(RCSIM_PERF_LEVELS=1)
    with libkpc.Sampler() as s, s.counters("cycles", "p-cycles", "e-cycles", "e-instructions") as c:
        c.start()
        burn_cpu(0.01)
        v = c.sample()
    assert v[0] > 0 and v[1] == v[0] and v[2] == 0 and v[3] == 0, v


def test_a_virtual_machine_is_unsupported_and_says_why(simulate):
    simulate(RCSIM_VM=1)
    with libkpc.Sampler() as s:
        with pytest.raises(libkpc.KpcError) as info:
            s.access()
        assert info.value.status is libkpc.Status.EUNSUPPORTED and info.value.code == -7
        assert "virtual machine" in info.value.message
        with pytest.raises(libkpc.KpcError) as info:
            s.counters("cycles")
        assert info.value.status is libkpc.Status.EUNSUPPORTED


def test_a_libsystem_without_thread_selfcounts_is_unsupported(simulate):
    path = os.environ.get("KPC_TEST_RCSIM_NOSELFCOUNTS")
    if not path:
        pytest.skip("KPC_TEST_RCSIM_NOSELFCOUNTS does not name librecount_sim_noselfcounts.so")
    simulate(KPC_LIBSYSTEM_PATH=path)
    with libkpc.Sampler() as s:
        with pytest.raises(libkpc.KpcError) as info:
            s.access()
    assert info.value.status is libkpc.Status.EUNSUPPORTED
    assert "thread_selfcounts" in info.value.message


def test_other_events_need_root_and_kperf():
    with libkpc.Sampler() as s:
        assert not s.find_event("branches").is_available
        with pytest.raises(libkpc.KpcError) as info:
            s.counters("cycles", "branches")
    assert info.value.status is libkpc.Status.EUNAVAILABLE and info.value.code == -9
    assert "root" in info.value.message and "kperf" in info.value.message


def test_macos_12_has_totals_only(simulate):
    simulate(RCSIM_MACOS="12.6")
    with libkpc.Sampler() as s:
        for name in ("p-cycles", "e-instructions"):
            e = s.find_event(name)
            assert not e.is_available and "13.0" in e.unavailable_reason, (name, e.unavailable_reason)
        with s.counters("cycles", "instructions") as c:
            c.start()
            burn_cpu(0.005)
            v = c.sample()
        assert v[0] > 0 and v[1] == INSTRUCTIONS_PER_CYCLE * v[0]
        with pytest.raises(libkpc.KpcError) as info:
            s.counters("cycles", "p-cycles")
        assert info.value.status is libkpc.Status.EUNAVAILABLE


def test_threads_count_in_isolation():
    result = {}

    def busy(sampler):
        with sampler.counters("cycles") as c:
            c.start()
            a = c.sample()[0]
            cpu0 = time.thread_time_ns()
            burn_cpu(0.04)
            result["cpu"] = time.thread_time_ns() - cpu0
            result["cycles"] = c.sample()[0] - a

    with libkpc.Sampler() as s, s.counters("cycles") as mine:
        mine.start()
        before = mine.sample()[0]
        worker = threading.Thread(target=busy, args=(s,))
        worker.start()
        worker.join()  # this thread waits meanwhile
        idle = mine.sample()[0] - before
    assert result["cycles"] >= CYCLES_PER_NS * result["cpu"] * 0.9, result
    assert idle < result["cycles"] / 10, (idle, result)
