#!/usr/bin/env python3
"""Runs examples/gbench_sort.cpp (the README's benchmark example) and checks it against what
this machine can do, decided without libkpc: a direct perf_event_open of the hardware
instructions event.

- The machine counts instructions: the example must exit 0 and report instructions per
  iteration with no error.
- It cannot (no PMU, e.g. a VM): the example must exit 0 and report libkpc's reason
  ("libkpc: ... instructions ...") as the benchmark's error, never a number.

Google Benchmark exits 0 after SkipWithError, so the exit code alone proves nothing.

usage: check_readme_example.py EXAMPLE [ARGS...]
"""
import ctypes
import json
import os
import platform
import struct
import subprocess
import sys

PERF_EVENT_OPEN = {"x86_64": 298, "aarch64": 241, "arm64": 241}
PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS = 0, 1


def pmu_counts_instructions():
    """(True, "") if perf_event_open(instructions, this thread, user space only) succeeds,
    else (False, the reason)."""
    nr = PERF_EVENT_OPEN.get(platform.machine())
    if nr is None:
        sys.exit("check_readme_example.py: no perf_event_open number known for %s" % platform.machine())
    # perf_event_attr, first version (64 bytes): type, size, config, sample_period,
    # sample_type, read_format, then the flag bits: disabled (bit 0), exclude_kernel (5),
    # exclude_hv (6), so perf_event_paranoid 2 allows it.
    flags = (1 << 0) | (1 << 5) | (1 << 6)
    attr = struct.pack("=IIQQQQQ", PERF_TYPE_HARDWARE, 64, PERF_COUNT_HW_INSTRUCTIONS, 0, 0, 0, flags)
    attr += b"\0" * (64 - len(attr))
    buf = ctypes.create_string_buffer(attr, 64)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(nr), buf, ctypes.c_int(0), ctypes.c_int(-1), ctypes.c_int(-1),
                      ctypes.c_ulong(0))
    if fd >= 0:
        os.close(fd)
        return True, ""
    err = ctypes.get_errno()
    return False, "perf_event_open(instructions) failed: %s" % os.strerror(err)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    can_count, why = pmu_counts_instructions()
    print("independent probe: %s" % ("this machine counts instructions" if can_count else why))
    run = subprocess.run(argv[1:] + ["--benchmark_format=json"], stdout=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit("the example exited with status %d" % run.returncode)
    results = json.loads(run.stdout)["benchmarks"]
    if not results:
        sys.exit("the example ran no benchmark")
    for b in results:
        error = b.get("error_message")
        if can_count:
            if error is not None:
                sys.exit("%s: the machine counts instructions, yet libkpc failed: %s" % (b["name"], error))
            if not b.get("instructions", 0) > 0:
                sys.exit("%s reports no instructions: %s" % (b["name"], sorted(b)))
            print("%s: instructions/iteration %.0f" % (b["name"], b["instructions"]))
        else:
            if error is None:
                sys.exit("%s: no PMU here (%s), yet the example reported numbers: %s" % (b["name"], why, b))
            if not error.startswith("libkpc: ") or "instructions" not in error:
                sys.exit("%s: the error does not give libkpc's reason naming the event: %s" % (b["name"], error))
            print("%s: no PMU, and libkpc says why: %s" % (b["name"], error))


if __name__ == "__main__":
    main(sys.argv)
