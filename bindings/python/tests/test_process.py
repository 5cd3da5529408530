"""libkpc.Process on perf_event: a whole process, every thread of it."""
import errno
import os
import signal
import threading

import pytest

import libkpc
from conftest import touch_fresh_pages

# A C program that faults N fresh pages (tests/cli/workload.c; CTest passes its path).
WORKLOAD = os.environ.get("KPC_TEST_WORKLOAD")
# What the workload's own start-up faults (loader, libc): about 60 here; generous.
STARTUP_FAULTS = 400


def workload():
    if not WORKLOAD:
        pytest.skip("KPC_TEST_WORKLOAD is not set (CTest sets it to tests/cli's workload)")
    return WORKLOAD


def test_spawned_command_counts_its_pages(sampler):
    pages = 2000
    with libkpc.Process.spawn(sampler, [workload(), "touch", str(pages)],
                              "page-faults", "task-clock") as p:
        assert p.pid > 0 and p.pid != os.getpid()
        assert p.wait() == libkpc.ExitStatus(0, 0)
        faults, clock = p.read()
        assert pages <= faults <= pages + STARTUP_FAULTS, faults
        assert clock > 0
        assert p.scopes == (libkpc.Scope.TREE, libkpc.Scope.TREE)
        full = p.read_full()
        assert full.values == [faults, clock]  # ended: the totals stay as they were
        assert full.complete == [True, True]   # software events are never multiplexed
        assert all(r <= e for r, e in zip(full.time_running_ns, full.time_enabled_ns))
        assert p.as_dict() == {"page-faults": faults, "task-clock": clock}


def test_wait_reports_exit_code_and_signal(sampler):
    with libkpc.Process.spawn(sampler, ["sh", "-c", "exit 3"], "task-clock") as p:
        assert p.wait() == (3, 0)
        assert p.wait() == (3, 0)  # again: the same result at once
    with libkpc.Process.spawn(sampler, ["sh", "-c", "kill -TERM $$"], "task-clock") as p:
        assert p.wait() == libkpc.ExitStatus(exit_code=-1, signal=signal.SIGTERM)


def test_attach_self_counts_every_thread(sampler):
    threads, pages = 4, 300
    with libkpc.Process.attach(sampler, "page-faults") as p:
        assert p.pid == os.getpid()
        before = p.read()[0]
        workers = [threading.Thread(target=touch_fresh_pages, args=(pages,))
                   for _ in range(threads)]  # created after attach: followed too
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        counted = p.read()[0] - before
        assert counted >= threads * pages, counted


def test_stop_pauses_and_start_resumes(sampler):
    pages = 1000
    with libkpc.Process.attach(sampler, "page-faults", pid=0) as p:
        assert p.is_counting
        p.stop()
        assert not p.is_counting
        paused = p.read()[0]
        touch_fresh_pages(pages)
        # Nothing counts while stopped (allowing for a thread the interpreter might create
        # at the very moment of the stop, which the header says can escape it).
        assert p.read()[0] - paused < pages // 2
        p.start()
        touch_fresh_pages(pages)
        assert p.read()[0] - paused >= pages


def test_read_while_another_thread_waits(sampler):
    with libkpc.Process.spawn(sampler, ["sleep", "0.3"], "task-clock") as p:
        result = []
        waiter = threading.Thread(target=lambda: result.append(p.wait()))
        waiter.start()
        assert len(p.read()) == 1  # not blocked by the wait in progress
        waiter.join()
        assert result == [(0, 0)]


def test_errors_carry_status_and_message(sampler):
    with pytest.raises(libkpc.KpcError) as e:
        libkpc.Process.spawn(sampler, ["kpc-no-such-program"], "task-clock")
    assert e.value.status == libkpc.Status.EEXEC
    assert e.value.os_code == errno.ENOENT
    assert "kpc-no-such-program" in e.value.message
    with pytest.raises(libkpc.KpcError) as e:
        libkpc.Process.attach(sampler, "no-such-event")
    assert e.value.status == libkpc.Status.EUNKNOWN_EVENT
    assert "no-such-event" in e.value.message
    with pytest.raises(libkpc.KpcError) as e:
        libkpc.Process.spawn(sampler, [], "task-clock")
    assert e.value.status == libkpc.Status.EINVAL
    with libkpc.Process.attach(sampler, "task-clock") as p:
        with pytest.raises(libkpc.KpcError) as e:
            p.wait()
        assert e.value.status == libkpc.Status.ESTATE and e.value.message


def test_close_kills_a_command_not_waited_for(sampler):
    p = libkpc.Process.spawn(sampler, ["sleep", "30"], "task-clock")
    pid = p.pid
    p.close()
    p.close()  # idempotent
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped: no process, no zombie
    with pytest.raises(ValueError):
        p.read()


def test_process_outlives_its_sampler():
    s = libkpc.Sampler(libkpc.Backend.PERF_EVENT)
    p = libkpc.Process.attach(s, "task-clock")
    s.close()
    try:
        assert p.read()[0] > 0
    finally:
        p.close()
