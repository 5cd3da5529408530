"""pytest plugin: the ``kpc_counters`` fixture counts CPU events in a test.

    def test_parse(kpc_counters):
        with kpc_counters.measure(iterations=1000):
            for _ in range(1000):
                parse(doc)

    @pytest.mark.kpc("instructions", "branch-misses")
    def test_sort(benchmark, kpc_counters):
        benchmark(kpc_counters.wrap(sorted), data)

Without an explicit ``measure()`` or ``wrap()`` the whole test body is counted, as one
iteration. The per-iteration counts go into the test's ``user_properties`` (JUnit XML),
the terminal summary ("libkpc counters") and, when the test uses pytest-benchmark's
``benchmark`` fixture, ``benchmark.extra_info["kpc"]``. pytest-benchmark is optional.

Events: ``@pytest.mark.kpc(*names)``, else ``--kpc-events=a,b``, else ``task-clock`` and
``page-faults`` (perf_event) or ``cycles`` and ``instructions`` (kperf, which has no
software events). Counters belong to the test's thread: work the test hands to other
threads is not counted. An event the machine cannot count fails the test with libkpc's
message, never a silent 0.

Installed with pip, the plugin is loaded by itself (entry point ``pytest11``); otherwise
add ``-p libkpc.pytest_plugin`` or ``pytest_plugins = ["libkpc.pytest_plugin"]``.
"""
import functools

import pytest

_RESULTS_KEY = "_libkpc_results"


def pytest_addoption(parser):
    parser.addoption("--kpc-events", default=None,
                     help="libkpc: comma-separated events for the kpc_counters fixture")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "kpc(*events): events the kpc_counters fixture counts in this test")
    setattr(config, _RESULTS_KEY, [])


class TestCounters:
    """What the ``kpc_counters`` fixture gives a test."""

    __test__ = False  # not a test class, despite the name

    def __init__(self, counters, benchmark=None):
        self.counters = counters
        self.benchmark = benchmark  # pytest-benchmark's fixture, when the test uses it
        self.totals = [0] * len(counters)
        self.iterations = 0

    def _add(self, counts, iterations):
        self.totals = [t + c for t, c in zip(self.totals, counts)]
        self.iterations += iterations
        if self.benchmark is not None:  # current as soon as benchmark(...) returns
            self.benchmark.extra_info["kpc"] = self.per_iteration()

    def measure(self, iterations=1, subtract_overhead=False):
        """Counts a ``with`` block that runs ``iterations`` iterations of the code under test."""
        owner = self

        class _Block:
            def __enter__(self):
                self.m = owner.counters.measure(subtract_overhead, iterations).__enter__()
                return self.m

            def __exit__(self, *exc):
                self.m.__exit__(*exc)
                if exc[0] is None:
                    owner._add(self.m.counts, iterations)
                return False

        return _Block()

    def wrap(self, fn):
        """``fn`` counted at every call (one iteration each); for ``benchmark(...)``.
        Each call pays for two samples (a few microseconds), which the timing includes."""
        @functools.wraps(fn)
        def counted(*args, **kwargs):
            with self.measure():
                return fn(*args, **kwargs)
        return counted

    def per_iteration(self):
        """{event name: count per iteration} over every measured block so far."""
        n = max(self.iterations, 1)
        return {name: total / n for name, total in zip(self.counters.names, self.totals)}


@pytest.fixture(scope="session")
def kpc_sampler():
    """One libkpc Sampler for the session."""
    from .sampler import Sampler
    with Sampler() as sampler:
        yield sampler


def _events(request, sampler):
    marker = request.node.get_closest_marker("kpc")
    if marker is not None and marker.args:
        return list(marker.args)
    option = request.config.getoption("--kpc-events")
    if option:
        return [name.strip() for name in option.split(",") if name.strip()]
    if sampler.backend_name == "kperf":
        return ["cycles", "instructions"]
    return ["task-clock", "page-faults"]


@pytest.fixture
def kpc_counters(request, kpc_sampler):
    """Counts events on the test's thread; reports them per iteration (see the module doc)."""
    benchmark = None
    if "benchmark" in request.fixturenames:
        benchmark = request.getfixturevalue("benchmark")  # set up first, torn down after us
    with kpc_sampler.counters(_events(request, kpc_sampler)) as counters:
        tc = TestCounters(counters, benchmark)
        counters.start()
        whole = counters.measure()
        whole.__enter__()
        yield tc
        whole.__exit__(None, None, None)
        if tc.iterations == 0:
            tc._add(whole.counts, 1)
    result = tc.per_iteration()
    request.node.user_properties.append(("kpc", result))
    getattr(request.config, _RESULTS_KEY).append((request.node.nodeid, tc.iterations, result))


def pytest_terminal_summary(terminalreporter, config):
    results = getattr(config, _RESULTS_KEY, [])
    if not results:
        return
    terminalreporter.section("libkpc counters (per iteration)")
    for nodeid, iterations, result in results:
        counts = ", ".join(f"{name} {value:,.1f}" for name, value in result.items())
        terminalreporter.write_line(f"{nodeid} ({iterations} iterations): {counts}")
