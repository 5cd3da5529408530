"""Process.system_wide (kp_process_attach_ex with KP_PROCESS_SYSTEM_WIDE): every CPU.
Linux allows it to root (this machine's tests) or with perf_event_paranoid <= 0."""
import time

import pytest

import libkpc


def test_system_wide_counts_every_cpu(sampler):
    try:
        p = libkpc.Process.system_wide(sampler, "task-clock", "context-switches")
    except libkpc.KpcError as e:
        if e.status is libkpc.Status.EPERM:
            pytest.skip(f"system-wide counting is not allowed here: {e.message}")
        raise
    with p:
        time.sleep(0.1)
        clock, _ = p.read()
        # Every CPU's clock runs for the 100 ms, busy or idle, while this thread sleeps.
        assert clock > 50_000_000, clock
        assert p.pid == -1
        assert p.scopes == (libkpc.Scope.SYSTEM, libkpc.Scope.SYSTEM)
        assert p.thread_count == 0
        with pytest.raises(libkpc.KpcError) as e:
            p.wait()
        assert e.value.status is libkpc.Status.ESTATE and e.value.message


def test_a_negative_pid_is_not_system_wide(sampler):
    # -1 means every CPU only through system_wide, never by accident.
    with pytest.raises(libkpc.KpcError) as e:
        libkpc.Process.attach(sampler, "task-clock", pid=-1)
    assert e.value.status is libkpc.Status.EINVAL
    assert "system_wide" in e.value.message
