#!/usr/bin/env python3
"""What a sample costs from Python, next to the bare C kp_thread_sample, in one run
(docs/performance.md, "Python: the cost of a sample").

Each round times, back to back and in alternating order, --reads calls of

  C             kp_thread_sample in a C loop: kp_thread_calibrate(t, ..., rounds) makes
                2 x rounds back-to-back kp_thread_sample calls in C (and keeps a minimum,
                a few instructions), so its time / (2 x rounds) is the bare C cost
  ctypes        one ctypes call of kp_thread_sample into a preallocated array (the least
                Python can do)
  sample_into   Counters.sample_into(buf), the package's cheapest path
  sample        Counters.sample(), which also builds the list it returns

plus `empty`, ctypes calls of kp_error_last_status (a thread-local read: the price of a
ctypes call alone). Time is the thread's CPU time, so other processes' turns on a busy
machine are not counted. It prints the median ns per call of each and the median over rounds of each / C (paired
per round, which cancels load that changes between rounds) with its interquartile range,
then the absolute overhead per call: sample_into and sample minus the bare ctypes call,
and the ctypes call minus C (paired per round). Nothing is asserted on time.

usage: KPC_LIBRARY=<build>/src/libkpc.so.0 PYTHONPATH=bindings/python/src \\
       python3 bench/python_sample_cost.py [--rounds 31] [--reads 10000] [--events task-clock,page-faults]
"""
import argparse
import ctypes
import statistics
import time

import libkpc
from libkpc import _native


def quartiles(xs):
    q = statistics.quantiles(xs, n=4)
    return q[0], q[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--reads", type=int, default=10000)
    ap.add_argument("--events", default="task-clock,page-faults,context-switches")
    args = ap.parse_args()
    names = args.events.split(",")
    lib = _native.lib()

    with libkpc.Sampler() as sampler, sampler.counters(names) as c:
        c.start()
        backend = sampler.backend_name
        h, n, reads = c._h, len(c), args.reads
        buf, offsets = c.new_buffer(), c.new_buffer()
        raw = lib.kp_thread_sample

        def c_loop():
            t0 = time.thread_time_ns()
            libkpc.errors.check(lib.kp_thread_calibrate(h, offsets, n, reads // 2))
            return time.thread_time_ns() - t0, (reads // 2) * 2

        def ctypes_loop():
            t0 = time.thread_time_ns()
            for _ in range(reads):
                raw(h, buf, n)
            return time.thread_time_ns() - t0, reads

        def into_loop():
            sample_into = c.sample_into
            t0 = time.thread_time_ns()
            for _ in range(reads):
                sample_into(buf)
            return time.thread_time_ns() - t0, reads

        def sample_loop():
            sample = c.sample
            t0 = time.thread_time_ns()
            for _ in range(reads):
                sample()
            return time.thread_time_ns() - t0, reads

        def empty_loop():
            last_status = lib.kp_error_last_status
            t0 = time.thread_time_ns()
            for _ in range(reads):
                last_status()
            return time.thread_time_ns() - t0, reads

        methods = {"C": c_loop, "ctypes": ctypes_loop, "sample_into": into_loop,
                   "sample": sample_loop, "empty": empty_loop}
        per_call = {m: [] for m in methods}
        for r in range(args.rounds):
            order = list(methods) if r % 2 == 0 else list(reversed(methods))
            for m in order:
                ns, calls = methods[m]()
                per_call[m].append(ns / calls)

    print(f"libkpc {libkpc.version()}, {backend} backend, events {','.join(names)}; "
          f"{args.rounds} rounds x {reads} reads per method")
    print(f"{'method':<12} {'ns/call':>10} {'ratio to C':>11} {'round ratios':>16}")
    for m, values in per_call.items():
        ratios = [v / cval for v, cval in zip(values, per_call["C"])]
        lo, hi = quartiles(ratios) if len(ratios) > 1 else (ratios[0], ratios[0])
        print(f"{m:<12} {statistics.median(values):>10.1f} {statistics.median(ratios):>11.2f} "
              f"{lo:>8.2f}-{hi:.2f}")
    # Absolute costs, paired within each round: they stay meaningful when the C sample gets
    # cheap and every ratio to it grows.
    print(f"absolute overhead per call, ns (median over rounds of the paired difference; "
          f"C sample {statistics.median(per_call['C']):.1f} ns):")
    for m, base in (("sample_into", "ctypes"), ("sample", "ctypes"), ("ctypes", "C")):
        diffs = [v - b for v, b in zip(per_call[m], per_call[base])]
        lo, hi = quartiles(diffs) if len(diffs) > 1 else (diffs[0], diffs[0])
        print(f"{m + ' - ' + base:<22} {statistics.median(diffs):>8.1f} {lo:>8.1f} to {hi:.1f}")


if __name__ == "__main__":
    main()
