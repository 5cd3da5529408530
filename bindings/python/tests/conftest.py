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


def cycles_counts_here():
    """Whether the kernel counts cycles for this process, asked with perf_event_open itself,
    not through libkpc: a test must not decide what to expect from the library it tests."""
    import ctypes
    import os
    import platform

    nr = {"x86_64": 298, "aarch64": 241}.get(platform.machine())
    if nr is None:
        pytest.skip(f"no perf_event_open number known for {platform.machine()}")
    # perf_event_attr as the kernel's first version (PERF_ATTR_SIZE_VER0, 64 bytes):
    # type PERF_TYPE_HARDWARE, config PERF_COUNT_HW_CPU_CYCLES, disabled, exclude_kernel, exclude_hv.
    attr = (ctypes.c_uint64 * 8)()
    attr[0] = 0 | (64 << 32)
    attr[1] = 0
    attr[5] = 1 | 1 << 5 | 1 << 6
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(nr), ctypes.byref(attr), 0, -1, -1, ctypes.c_ulong(0))
    if fd < 0:
        return False
    os.close(fd)
    return True


@pytest.fixture
def sampler():
    """A perf_event sampler (the software events are real on any Linux machine)."""
    with libkpc.Sampler(libkpc.Backend.PERF_EVENT) as s:
        yield s
