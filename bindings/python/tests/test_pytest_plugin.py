"""The kpc_counters fixture, run in an inner pytest session (pytester)."""
import json

import pytest

PLUGIN = ["-p", "libkpc.pytest_plugin", "-p", "no:cacheprovider"]


def test_measure_block_is_reported_per_iteration(pytester):
    pytester.makepyfile(test_inner="""
        import mmap, pytest
        @pytest.mark.kpc("page-faults")
        def test_pages(kpc_counters):
            with kpc_counters.measure(iterations=4):
                for _ in range(4):
                    with mmap.mmap(-1, 50 * mmap.PAGESIZE) as r:
                        for i in range(50):
                            r[i * mmap.PAGESIZE] = 1
            assert 50 <= kpc_counters.per_iteration()["page-faults"] <= 56
    """)
    result = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:benchmark", "--junitxml=out.xml")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*libkpc counters (per iteration)*",
                                 "*test_pages (4 iterations): page-faults 5*"])
    assert 'name="kpc"' in (pytester.path / "out.xml").read_text()  # user_properties


def test_whole_body_counted_without_measure(pytester):
    pytester.makepyfile(test_inner="""
        def test_burn(kpc_counters):
            sum(range(200_000))
    """)
    result = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:benchmark",
                                           "--kpc-events=task-clock")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_burn (1 iterations): task-clock *"])


def test_unavailable_event_fails_with_libkpc_message(pytester):
    pytester.makepyfile(test_inner="""
        import pytest
        @pytest.mark.kpc("no-such-event")
        def test_x(kpc_counters):
            pass
    """)
    result = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:benchmark")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no-such-event*EUNKNOWN_EVENT*"])


def test_benchmark_extra_info(pytester):
    pytest.importorskip("pytest_benchmark", reason="apt-get install python3-pytest-benchmark")
    pytester.makepyfile(test_inner="""
        import pytest
        @pytest.mark.kpc("page-faults")
        def test_b(benchmark, kpc_counters):
            benchmark.pedantic(kpc_counters.wrap(lambda: bytearray(1 << 22)), rounds=5)
    """)
    result = pytester.runpytest_subprocess(*PLUGIN, "--benchmark-json=b.json")
    result.assert_outcomes(passed=1)
    info = json.loads((pytester.path / "b.json").read_text())["benchmarks"][0]["extra_info"]
    assert info["kpc"]["page-faults"] > 0
