"""Process.read_thread (kp_process_thread_count, kp_process_read_thread): one row per
thread the attached process had."""
import threading

import pytest

import libkpc
from conftest import burn_cpu


def test_rows_add_up_to_the_process_total(sampler):
    burners, done = 2, threading.Event()
    started = threading.Barrier(burners + 1)

    def burn():
        started.wait()
        while not done.is_set():
            burn_cpu(0.005)

    workers = [threading.Thread(target=burn) for _ in range(burners)]
    for w in workers:
        w.start()
    try:
        started.wait()  # the burners exist: each gets a row
        with libkpc.Process.attach(sampler, "task-clock") as p:
            burn_cpu(0.1)
            p.stop()
            n = p.thread_count
            assert n >= burners + 1, n
            rows = p.read_threads()
            total = p.read()[0]
            assert len(rows) == n
            assert sum(r.values[0] for r in rows) == total, rows
            assert sum(1 for r in rows if r.values[0] > 0) > burners, rows
            tids = {r.tid for r in rows}
            assert len(tids) == n and all(t > 0 for t in tids), rows
            assert {threading.get_native_id()} | {w.native_id for w in workers} <= tids
            with pytest.raises(libkpc.KpcError) as e:
                p.read_thread(n)
            assert e.value.status is libkpc.Status.EINVAL
    finally:
        done.set()
        for w in workers:
            w.join()
