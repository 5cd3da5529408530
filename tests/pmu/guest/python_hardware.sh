# The Python binding's hardware test (bindings/python/tests/test_errors.py,
# test_hardware_event_is_unavailable_or_counts) under Debian's arm64 python3.11 and pytest,
# which pmu-guest.sh packs with the binding's sources in /pmu/python. On x86 CI the test takes
# its "cannot count" branch (a direct perf_event_open finds no PMU); here it must pass through
# its counting branch, with exact deltas: cycles = 2^N x instructions.
# usage: sh python_hardware.sh KPC   (in the guest)
PY=/usr/bin/python3.11
[ -x "$PY" ] || { echo "FAIL: $PY is missing (pmu-guest.sh packs Debian's arm64 python3.11)"; exit 1; }
[ -d /pmu/python/tests ] || { echo "FAIL: /pmu/python/tests is missing (pmu-guest.sh copies bindings/python)"; exit 1; }
TEST=tests/test_errors.py::test_hardware_event_is_unavailable_or_counts
cd /pmu/python || exit 1
KPC_LIBRARY=/pmu/lib/libkpc.so.0 PYTHONPATH=/pmu/python/src PYTHONDONTWRITEBYTECODE=1 \
    "$PY" -m pytest -v -s -rA -p no:cacheprovider "$TEST" > /tmp/python_hardware.txt 2>&1
rc=$?
cat /tmp/python_hardware.txt
[ $rc = 0 ] || { echo "FAIL: pytest exited $rc"; exit 1; }
grep -q "^PASSED $TEST\$" /tmp/python_hardware.txt ||
    { echo "FAIL: $TEST did not pass (skipped?)"; exit 1; }
# shellcheck source=lib/exact_counts.sh
. /pmu/checks/lib/exact_counts.sh
expect_exact_counts /tmp/python_hardware.txt
