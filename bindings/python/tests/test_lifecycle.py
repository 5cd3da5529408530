"""Context managers free; handles may be closed in any order."""
import gc

import pytest

import libkpc


def test_with_blocks_close_the_handles():
    with libkpc.Sampler(libkpc.Backend.PERF_EVENT) as s:
        with s.counters("task-clock") as c:
            c.start()
            assert c.is_running
        assert c._h is None
        with pytest.raises(ValueError, match="closed"):
            c.sample()
        c.close()  # idempotent
    assert s._h is None
    with pytest.raises(ValueError, match="closed"):
        s.counters("task-clock")


def test_counters_outlive_their_sampler():
    s = libkpc.Sampler(libkpc.Backend.PERF_EVENT)
    c = s.counters("task-clock")
    s.close()
    del s
    gc.collect()
    c.start()
    assert c.sample()[0] > 0
    c.close()


def test_release_makes_counting_a_state_error():
    with libkpc.Sampler(libkpc.Backend.PERF_EVENT) as s, s.counters("task-clock") as c:
        c.start()
        s.release()
        with pytest.raises(libkpc.KpcError) as info:
            c.sample()
        assert info.value.status is libkpc.Status.ESTATE and info.value.message


def test_many_create_start_stop_cycles():
    with libkpc.Sampler(libkpc.Backend.PERF_EVENT) as s:
        for _ in range(50):
            with s.counters("task-clock", "page-faults") as c:
                c.start()
                c.sample()
                c.stop()


def test_unclosed_handles_are_freed_by_the_garbage_collector():
    s = libkpc.Sampler(libkpc.Backend.PERF_EVENT)
    c = s.counters("task-clock")
    del s, c
    gc.collect()  # __del__ frees; nothing to assert but that it does not crash
    with libkpc.Sampler(libkpc.Backend.PERF_EVENT) as s2:
        assert s2.backend is libkpc.Backend.PERF_EVENT
