#!/bin/sh
# scripts/ci/run-ctest.sh on tests/ci/ctest_fixture: a skipped test is listed with the
# reason it printed (for GoogleTest, the GTEST_SKIP() message, not its [  SKIPPED ] line)
# and does not fail the run; a failing test does.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
run_ctest="$here/../../scripts/ci/run-ctest.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/kpc-run-ctest.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$work/out" >&2; exit 1; }

cmake -S "$here/ctest_fixture" -B "$work/ok" >/dev/null
"$run_ctest" "$work/ok" >"$work/out" 2>&1 || fail "run-ctest.sh failed on a passing and a skipping test"
grep -qx "skipped: skips: no PMU here: hardware events are not supported" "$work/out" ||
  fail "the skip reason was not printed"
grep -qx "skipped: gtest_skips: no hardware counters: perf_event_open(PERF_COUNT_HW_INSTRUCTIONS): No such file or directory" "$work/out" ||
  fail "a GoogleTest skip's reason (the GTEST_SKIP() message) was not printed"
grep -qx "2 test(s) skipped" "$work/out" || fail "the skip count was not printed"

cmake -S "$here/ctest_fixture" -B "$work/bad" -DFIXTURE_FAIL=ON >/dev/null
if "$run_ctest" "$work/bad" >"$work/out" 2>&1; then fail "run-ctest.sh passed although a test failed"; fi
echo "run-ctest.sh: skip reasons listed, failures fail"
