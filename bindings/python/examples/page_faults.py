"""Counts the page faults of touching N fresh pages, per iteration: about N each time."""
import mmap
import sys

import libkpc

PAGES = int(sys.argv[1]) if len(sys.argv) > 1 else 64
ITERATIONS = 20


def touch_fresh_pages(n):
    with mmap.mmap(-1, n * mmap.PAGESIZE) as region:  # new anonymous memory: nothing mapped yet
        for i in range(n):
            region[i * mmap.PAGESIZE] = 1  # the first write to a page faults it in


with libkpc.Sampler() as sampler:
    with sampler.counters("page-faults", "task-clock") as counters:  # this thread only
        with counters.measure(iterations=ITERATIONS) as m:
            for _ in range(ITERATIONS):
                touch_fresh_pages(PAGES)
        per_iteration = m.per_iteration()
        print(f"touched {PAGES} fresh pages per iteration, {ITERATIONS} iterations")
        print(f"page-faults per iteration: {per_iteration['page-faults']:.1f}")
        print(f"task-clock per iteration: {per_iteration['task-clock'] / 1000:.1f} us")
