#!/bin/sh
# Runs CTest on a build and then prints each skipped test with the reason it gave, so a log
# says what was not tested here and why (CTest itself prints only "Skipped").
# usage: scripts/ci/run-ctest.sh BUILD_DIR [ctest arguments...]
# Exits with ctest's status: a failure fails, a skip does not (and is listed).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [ctest arguments...]" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
junit="$build/Testing/ctest-junit.xml"
rm -f "$junit"
status=0
ctest --test-dir "$build" --output-on-failure --output-junit "$junit" "$@" || status=$?
if [ -f "$junit" ]; then
  python3 "$here/ctest_skips.py" "$junit"
else
  echo "run-ctest: ctest wrote no $junit (no test matched?)" >&2
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
