#!/usr/bin/env python3
"""A dlopen consumer of libkpc: Python ctypes, no headers, no build step.

usage: ctypes_consumer.py LIBRARY [--backend NAME] [--cpu-id ID] [--count require|try|no]

Loads LIBRARY (libkpc.so / libkpc.dylib) by path, opens a sampler with the defaults (so
KPC_BACKEND, KPC_KPERF_PATH and KPC_KPERFDATA_PATH apply, as for any user), and checks:
  - identification: backend (== --backend when given), CPU id (== --cpu-id when given), CPU
    and PMU names; on kperf the struct layout found at run time (48- or 56-byte events);
  - event resolution: the generic names resolve, and on a chip libkpc knows, cycles and
    instructions map to Apple's fixed counters;
  - counting (--count): task-clock and page-faults on perf_event, cycles and instructions on
    kperf, each growing across a known workload. Without permission: `require` exits 77
    (skipped, with the reason), `try` prints the reason and exits 0, `no` does not count.
Run by .github/workflows/macos.yml against Apple's frameworks and by CTest (tests/ci) on
Linux against perf_event and the kperf simulator.
"""
import argparse
import ctypes
import re
import sys

SKIP = 77
KP_OK = 0


class KperfInfo(ctypes.Structure):
    # kp_kperf_info_t in include/kpc/kperf_raw.h
    _fields_ = [("db_name", ctypes.c_char_p), ("db_api_name", ctypes.c_char_p),
                ("marketing_name", ctypes.c_char_p), ("event_stride", ctypes.c_size_t),
                ("chip_known", ctypes.c_int), ("configurable_before_force", ctypes.c_uint32),
                ("configurable_after_force", ctypes.c_uint32)]


def load(path):
    lib = ctypes.CDLL(path)
    p = ctypes.c_void_p
    signatures = {
        "kp_version_string": ([], ctypes.c_char_p),
        "kp_error_last_message": ([], ctypes.c_char_p),
        "kp_sampler_new": ([ctypes.POINTER(p), p], ctypes.c_int),
        "kp_sampler_free": ([p], None),
        "kp_sampler_backend_name": ([p], ctypes.c_char_p),
        "kp_sampler_cpu_id": ([p], ctypes.c_char_p),
        "kp_sampler_cpu_name": ([p], ctypes.c_char_p),
        "kp_sampler_pmu_name": ([p], ctypes.c_char_p),
        "kp_sampler_counter_count": ([ctypes.POINTER(ctypes.c_uint32)] * 2 + [p], ctypes.c_int),
        "kp_sampler_access": ([p], ctypes.c_int),
        "kp_sampler_event_count": ([p], ctypes.c_size_t),
        "kp_sampler_event_find": ([ctypes.POINTER(p), p, ctypes.c_char_p], ctypes.c_int),
        "kp_sampler_kperf_info": ([ctypes.POINTER(KperfInfo), p], ctypes.c_int),
        "kp_event_native_name": ([p], ctypes.c_char_p),
        "kp_event_is_available": ([p], ctypes.c_int),
        "kp_event_unavailable_reason": ([p], ctypes.c_char_p),
        "kp_thread_new": ([ctypes.POINTER(p), p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t],
                          ctypes.c_int),
        "kp_thread_free": ([p], None),
        "kp_thread_start": ([p], ctypes.c_int),
        "kp_thread_sample": ([p, ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t], ctypes.c_int),
    }
    for name, (args, res) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    return lib


def text(b):
    return "" if b is None else b.decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("library")
    ap.add_argument("--backend")
    ap.add_argument("--cpu-id")
    ap.add_argument("--count", choices=["require", "try", "no"], default="require")
    args = ap.parse_args()

    lib = load(args.library)

    def check(status, what):
        if status != KP_OK:
            sys.exit(f"FAIL: {what} returned {status}: {text(lib.kp_error_last_message())}")

    def expect(cond, what):
        if not cond:
            sys.exit(f"FAIL: {what}")

    version = text(lib.kp_version_string())
    expect(re.fullmatch(r"\d+\.\d+\.\d+", version), f"kp_version_string() is '{version}'")

    s = ctypes.c_void_p()
    check(lib.kp_sampler_new(ctypes.byref(s), None), "kp_sampler_new")
    backend = text(lib.kp_sampler_backend_name(s))
    cpu_id = text(lib.kp_sampler_cpu_id(s))
    fixed, conf = ctypes.c_uint32(), ctypes.c_uint32()
    check(lib.kp_sampler_counter_count(ctypes.byref(fixed), ctypes.byref(conf), s), "counter_count")
    print(f"libkpc {version} ({args.library})")
    print(f"backend {backend}; cpu id '{cpu_id}', name '{text(lib.kp_sampler_cpu_name(s))}', "
          f"pmu '{text(lib.kp_sampler_pmu_name(s))}'; counters {fixed.value} fixed + "
          f"{conf.value} configurable; {lib.kp_sampler_event_count(s)} events")
    expect(args.backend is None or backend == args.backend, f"backend is {backend}, expected {args.backend}")
    expect(args.cpu_id is None or cpu_id == args.cpu_id, f"cpu id is '{cpu_id}', expected '{args.cpu_id}'")
    expect(cpu_id and lib.kp_sampler_event_count(s) > 0, "no CPU id or an empty event database")

    chip_known = False
    if backend == "kperf":
        info = KperfInfo()
        check(lib.kp_sampler_kperf_info(ctypes.byref(info), s), "kp_sampler_kperf_info")
        chip_known = bool(info.chip_known)
        print(f"kpep database '{text(info.db_name)}' ('{text(info.db_api_name)}'), event struct "
              f"{info.event_stride} bytes, chip {'known' if chip_known else 'unknown'} to libkpc")
        expect(info.event_stride in (48, 56), f"kpep_event stride {info.event_stride}")
        expect(fixed.value == 2, f"{fixed.value} fixed counters on Apple, expected 2")

    names = ["cycles", "instructions", "branches", "branch-misses"]
    if backend == "perf_event":
        names += ["task-clock", "page-faults"]
    for name in names:
        ev = ctypes.c_void_p()
        check(lib.kp_sampler_event_find(ctypes.byref(ev), s, name.encode()), f"event_find({name})")
        native = text(lib.kp_event_native_name(ev))
        if lib.kp_event_is_available(ev):
            print(f"  {name:14} -> {native}")
        else:
            print(f"  {name:14} unavailable: {text(lib.kp_event_unavailable_reason(ev))}")
        if chip_known and name in ("cycles", "instructions"):
            expect(lib.kp_event_is_available(ev) and native.startswith("FIXED_"),
                   f"{name} resolves to '{native}', expected Apple's fixed counter")

    if args.count != "no":
        count(lib, s, backend, args.count, check, expect)
    lib.kp_sampler_free(s)
    print("ctypes consumer: ok")
    return 0


def count(lib, s, backend, mode, check, expect):
    events = ["cycles", "instructions"] if backend == "kperf" else ["task-clock", "page-faults"]
    if backend == "kperf" and lib.kp_sampler_access(s) != KP_OK:
        reason = text(lib.kp_error_last_message())
        print(f"counting skipped: {reason}")
        if mode == "require":
            sys.exit(SKIP)
        return
    arr = (ctypes.c_char_p * len(events))(*[e.encode() for e in events])
    t = ctypes.c_void_p()
    check(lib.kp_thread_new(ctypes.byref(t), s, arr, len(events)), f"kp_thread_new({events})")
    check(lib.kp_thread_start(t), "kp_thread_start")
    before = (ctypes.c_uint64 * len(events))()
    after = (ctypes.c_uint64 * len(events))()
    check(lib.kp_thread_sample(t, before, len(events)), "kp_thread_sample")
    total = sum(i * i for i in range(300_000))  # CPU work
    pages = bytearray(16 << 20)                 # 4096 fresh pages, zero-filled: page faults
    check(lib.kp_thread_sample(t, after, len(events)), "kp_thread_sample")
    for i, name in enumerate(events):
        print(f"  counted {name}: {after[i] - before[i]}")
        expect(after[i] > before[i], f"{name} did not grow across the workload")
    lib.kp_thread_free(t)
    del total, pages


if __name__ == "__main__":
    sys.exit(main())
