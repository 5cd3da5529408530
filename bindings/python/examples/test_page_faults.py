"""The kpc_counters fixture: page faults per iteration of touching fresh pages.
Run: pytest examples/test_page_faults.py (with libkpc installed by pip; else add
-p libkpc.pytest_plugin). The counts appear under "libkpc counters" at the end."""
import mmap

import pytest

PAGES = 64


def touch_fresh_pages(n=PAGES):
    with mmap.mmap(-1, n * mmap.PAGESIZE) as region:  # new anonymous memory: nothing mapped yet
        for i in range(n):
            region[i * mmap.PAGESIZE] = 1  # the first write to a page faults it in


@pytest.mark.kpc("page-faults")
def test_touch_pages(kpc_counters):
    with kpc_counters.measure(iterations=10):
        for _ in range(10):
            touch_fresh_pages()
    assert kpc_counters.per_iteration()["page-faults"] >= PAGES


@pytest.mark.kpc("page-faults")
def test_touch_pages_benchmark(benchmark, kpc_counters):  # needs pytest-benchmark
    benchmark(kpc_counters.wrap(touch_fresh_pages))
    assert benchmark.extra_info["kpc"]["page-faults"] >= PAGES
