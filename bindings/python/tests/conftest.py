"""Shared helpers. libkpc comes from KPC_LIBRARY (CTest sets it) or the package's loader."""
import mmap

import pytest

import libkpc

pytest_plugins = ["pytester"]  # test_pytest_plugin.py runs pytest inside pytest


def touch_fresh_pages(n):
    """Writes one byte to each of n pages of new anonymous memory: n page faults."""
    with mmap.mmap(-1, n * mmap.PAGESIZE) as region:
        for i in range(n):
            region[i * mmap.PAGESIZE] = 1


def burn_cpu(seconds):
    """Spends about `seconds` of this thread's CPU time."""
    import time
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


@pytest.fixture
def sampler():
    """A perf_event sampler (the software events are real on any Linux machine)."""
    with libkpc.Sampler(libkpc.Backend.PERF_EVENT) as s:
        yield s
