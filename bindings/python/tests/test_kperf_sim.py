"""The kperf backend against the simulated Apple frameworks (tests/kperf_sim).

CTest's python_kperf_sim sets KPC_BACKEND=kperf, KPC_KPERF_PATH and KPC_KPERFDATA_PATH;
without them these tests skip, saying so."""
import os

import pytest

import libkpc

pytestmark = pytest.mark.skipif(
    os.environ.get("KPC_BACKEND") != "kperf" or not os.environ.get("KPC_KPERF_PATH"),
    reason="set KPC_BACKEND=kperf, KPC_KPERF_PATH and KPC_KPERFDATA_PATH to the simulator "
           "(ctest -R python_kperf_sim does)")


@pytest.fixture
def sim():
    with libkpc.Sampler() as s:  # the environment selects the simulator
        yield s


def test_simulated_apple_cpu(sim):
    assert sim.backend is libkpc.Backend.KPERF and sim.backend_name == "kperf"
    assert sim.cpu_name.startswith("Apple M")
    fixed, configurable = sim.counter_counts
    assert fixed >= 2 and configurable >= 6


def test_cycles_and_instructions_count_work(sim):
    with sim.counters("cycles", "instructions") as c:
        assert [e.kind for e in c.events] == [libkpc.EventKind.FIXED] * 2
        assert all(e.counts_kernel for e in c.events)
        c.start()
        with c.measure() as small:
            sum(range(1_000))
        with c.measure() as large:
            sum(range(1_000_000))
        assert all(n > 0 for n in small.counts)
        assert large.counts[0] > small.counts[0] and large.counts[1] > small.counts[1]
        offsets = c.calibrate()
        assert offsets[1] > 0  # each read's kernel work, on the fixed counters


def test_software_events_are_unavailable_on_kperf(sim):
    with pytest.raises(libkpc.KpcError) as info:
        sim.counters("page-faults")
    assert info.value.status in (libkpc.Status.EUNAVAILABLE, libkpc.Status.EUNKNOWN_EVENT)
    assert "page-faults" in info.value.message


def test_wrong_thread_on_kperf(sim):
    import threading
    with sim.counters("cycles") as c:
        c.start()
        errors = []
        t = threading.Thread(target=lambda: errors.append(_error_of(c.sample)))
        t.start()
        t.join()
        assert errors[0].status is libkpc.Status.EWRONG_THREAD


def _error_of(fn):
    try:
        fn()
    except libkpc.KpcError as e:
        return e
    return None


READ_COST = 1000  # instructions each counter read costs in the simulator below


@pytest.fixture
def exact_sim():
    """The simulator with CPU-time accrual off and every counter read costing READ_COST
    instructions (KPSIM_CPU_TIME_COUNTS=0, KPSIM_READ_KERNEL_INSTRUCTIONS; tests/kperf_sim/
    README.md), so counts are known exactly. Yields the sampler and the simulator library
    (the instance libkpc loads: the same path), then restores the knobs."""
    import ctypes
    lib = ctypes.CDLL(os.environ["KPC_KPERF_PATH"])
    lib.kpc_get_thread_counters.argtypes = [ctypes.c_uint32, ctypes.c_uint32,
                                            ctypes.POINTER(ctypes.c_uint64)]
    knobs = {"KPSIM_CPU_TIME_COUNTS": "0", "KPSIM_READ_KERNEL_INSTRUCTIONS": str(READ_COST)}
    saved = {k: os.environ.get(k) for k in knobs}
    os.environ.update(knobs)
    lib.kpsim_reset()  # the simulator reads its knobs here
    try:
        with libkpc.Sampler() as s:
            yield s, lib
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        lib.kpsim_reset()


def test_measure_subtracts_the_read_overhead_exactly(exact_sim):
    # Each iteration makes one raw counter read: exactly READ_COST instructions. The measured
    # region also holds the cost of the read that opens it (READ_COST, once), which
    # subtract_overhead must remove: not removed gives (n + 1) * READ_COST, removed twice
    # (n - 1) * READ_COST. (Page faults cannot tell: their offset is 0.)
    import ctypes
    sim, lib = exact_sim
    buf = (ctypes.c_uint64 * 32)()
    n = 20
    with sim.counters("instructions") as c:
        c.start()
        assert c.calibrate() == [READ_COST]
        with c.measure(subtract_overhead=True, iterations=n) as m:
            failed = sum(lib.kpc_get_thread_counters(0, 32, buf) != 0 for _ in range(n))
        assert failed == 0
        assert m.counts == [n * READ_COST]
        assert m.per_iteration() == {"instructions": READ_COST}
