#!/usr/bin/env python3
"""Runs pytest for CTest and turns its result into CTest's: 0 when every collected test
passed, 77 (CTest's SKIP_RETURN_CODE) when some were skipped and none failed, 1 otherwise,
including pytest's exit 5 (no tests collected): a run that tested nothing is a failure.

usage: run_pytest.py PYTEST_ARGS...
"""
import sys

try:
    import pytest
except ImportError:
    sys.exit("pytest not found for " + sys.executable + ": apt-get install python3-pytest "
             "(or run scripts/install-deps.sh)")


class Outcomes:
    def __init__(self):
        self.passed = self.skipped = self.failed = 0

    def pytest_runtest_logreport(self, report):
        if report.skipped:
            self.skipped += 1
        elif report.failed:
            self.failed += 1
        elif report.passed and report.when == "call":
            self.passed += 1


outcomes = Outcomes()
code = pytest.main(["-v", "-rs", "-p", "no:cacheprovider"] + sys.argv[1:], plugins=[outcomes])
if code == 5:
    sys.exit("pytest collected no tests: check the path and -k/-m filters")
if code != 0 or outcomes.failed:
    sys.exit(1)
if outcomes.passed == 0 or outcomes.skipped:
    print(f"run_pytest: {outcomes.skipped} test(s) skipped; reported to CTest as skipped")
    sys.exit(77)
sys.exit(0)
