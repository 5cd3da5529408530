"""Counters belong to the thread that created them."""
import threading

import pytest

import libkpc


def run_in_thread(fn):
    result = {}

    def body():
        try:
            result["value"] = fn()
        except BaseException as e:  # handed to the test's thread
            result["error"] = e

    t = threading.Thread(target=body)
    t.start()
    t.join()
    return result


@pytest.mark.parametrize("call", ["start", "stop", "sample", "sample_full", "calibrate"])
def test_other_thread_gets_wrong_thread(sampler, call):
    with sampler.counters("task-clock") as c:
        c.start()
        result = run_in_thread(getattr(c, call))
        error = result.get("error")
        assert isinstance(error, libkpc.KpcError), result
        assert error.status is libkpc.Status.EWRONG_THREAD
        assert error.message  # read on the failing thread, right after the call
        assert c.sample()[0] > 0  # still works on its own thread


def test_messages_stay_with_their_thread(sampler):
    libkpc._native.lib().kp_error_clear()
    result = run_in_thread(lambda: sampler.counters("no-such-event"))
    assert result["error"].status is libkpc.Status.EUNKNOWN_EVENT
    assert "no-such-event" in result["error"].message
    # the other thread's failure left this thread's last error alone
    assert libkpc._native.lib().kp_error_last_status() == 0


def test_each_thread_counts_its_own_work(sampler):
    from conftest import touch_fresh_pages

    def other():
        with sampler.counters("page-faults") as c:
            with c.measure() as m:
                touch_fresh_pages(200)
            return m.counts[0]

    with sampler.counters("page-faults") as mine:
        with mine.measure() as m:
            theirs = run_in_thread(other)["value"]
        assert theirs >= 200
        assert m.counts[0] < 100  # the other thread's 200 faults are not ours
