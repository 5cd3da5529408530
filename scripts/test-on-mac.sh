#!/bin/sh
# Tests libkpc on a real Apple Silicon Mac and writes one report file to send back.
#
#   sudo scripts/test-on-mac.sh            everything, including counting (needs root)
#   scripts/test-on-mac.sh --no-root       only what needs no root: tests that count skip
#
# It builds into build-mac/ (as the user who ran sudo), runs the test suite (tests that need
# root or a PMU run for real; the rest is the same as CI) and the Swift binding's hardware
# test, then `kpc info`, `kpc list` and `kpc check --json`, and writes all that and the
# machine's identity to one report file whose path it prints at the end.
# Needs Xcode's command-line tools, CMake, Ninja and GoogleTest (scripts/ci/deps.sh).
set -eu

usage() { echo "usage: sudo $0   or   $0 --no-root" >&2; exit 2; }
root_needed=1
case "${1:-}" in
  "") ;;
  --no-root) root_needed=0 ;;
  -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
  *) usage ;;
esac
[ "$(uname -s)" = Darwin ] ||
  { echo "test-on-mac: this script is for macOS on Apple Silicon; on Linux run scripts/test.sh" >&2; exit 1; }
if [ "$root_needed" = 1 ] && [ "$(id -u)" -ne 0 ]; then
  echo "test-on-mac: counting on macOS needs root. Run: sudo $0" >&2
  echo "  (or $0 --no-root for the part that needs no root; counting tests then skip)" >&2
  exit 1
fi

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build-mac"
# Build as the user behind sudo, so the tree does not fill with root-owned files.
as_user() {
  if [ -n "${SUDO_USER:-}" ] && [ "$(id -u)" -eq 0 ]; then sudo -u "$SUDO_USER" env PATH="$PATH" "$@"; else "$@"; fi
}
as_user "$src/scripts/ci/build.sh" "$build"
kpc="$build/src/cli/kpc"

report="$build/kpc-mac-report-$(date +%Y%m%d-%H%M%S).txt"
section() { printf '\n== %s ==\n' "$1" >>"$report"; }
# Runs a command, appends its output and exit status to the report.
record() {
  status=0
  "$@" >>"$report" 2>&1 || status=$?
  echo "[exit $status]" >>"$report"
}

{
  echo "libkpc report from scripts/test-on-mac.sh"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "mode: $([ "$(id -u)" -eq 0 ] && echo root || echo "no root")"
} >"$report"
section "sw_vers"
record sw_vers
section "sysctl"
record sysctl hw.model machdep.cpu.brand_string hw.cpufamily hw.nperflevels
section "kpc info"
record "$kpc" info

echo "test-on-mac: running the test suite (this takes a few minutes)"
tests_log="$build/ctest-mac.log"
tests_status=0
"$src/scripts/ci/run-ctest.sh" "$build" >"$tests_log" 2>&1 ||
  tests_status=$?
section "tests (ctest; full log: $tests_log)"
grep -E '^[0-9]+% tests passed|^[[:space:]]+[0-9]+ - |^skipped: |test\(s\) skipped' "$tests_log" >>"$report" || true
echo "[exit $tests_status]" >>"$report"

# The Swift binding's hardware test: it counts only here (Linux CI has no PMU, and no arm64
# Swift runtime for its emulated one). Built as the user, run as whoever runs this script.
section "swift: KpcTests.HardwareTests"
if command -v swift >/dev/null 2>&1; then
  swift_scratch="$build/swift"
  swift_status=0
  as_user swift build --package-path "$src" --scratch-path "$swift_scratch" --build-tests >>"$report" 2>&1 &&
    swift test --package-path "$src" --scratch-path "$swift_scratch" --skip-build \
      --filter 'KpcTests.HardwareTests/' >>"$report" 2>&1 ||
    swift_status=$?
  echo "[exit $swift_status]" >>"$report"
else
  echo "swift not found (install Xcode or its command-line tools): not run" >>"$report"
fi

section "kpc check --json"
record "$kpc" check --json
section "kpc list --json"
record "$kpc" list --json

[ -z "${SUDO_USER:-}" ] || chown -R "$SUDO_USER" "$build" 2>/dev/null || true  # ctest ran as root
grep -E '^[0-9]+% tests passed' "$tests_log" || true
echo "test-on-mac: report written to $report"
echo "Please attach it to the issue, with the model of your Mac."
