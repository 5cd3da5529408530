# The Rust binding's hardware test (bindings/rust/kpc/tests/hardware.rs), cross-built by
# pmu-guest.sh with Debian's rustc and its arm64 std. On x86 CI it skips (a direct
# perf_event_open finds no PMU); here it must take its counting branch, record no skip, and
# its deltas must be exact: cycles = 2^N x instructions.
# usage: sh rust_hardware.sh KPC   (in the guest; PMU_BIN holds kpc_rust_hardware.test)
T=$PMU_BIN/kpc_rust_hardware.test
[ -x "$T" ] || { echo "FAIL: $T is missing (pmu-guest.sh cross-builds it with cargo)"; exit 1; }
cd /tmp || exit 1
rm -f /tmp/rust_skips.txt
KPC_SKIP_LOG=/tmp/rust_skips.txt "$T" --show-output --test-threads=1 > /tmp/rust_hardware.txt 2>&1
rc=$?
cat /tmp/rust_hardware.txt
[ $rc = 0 ] || { echo "FAIL: the Rust test binary exited $rc"; exit 1; }
[ ! -s /tmp/rust_skips.txt ] || { echo "FAIL: skipped here, where the PMU counts: $(cat /tmp/rust_skips.txt)"; exit 1; }
grep -q '^test hardware_events_count_or_say_why_not \.\.\. ok$' /tmp/rust_hardware.txt ||
    { echo "FAIL: hardware_events_count_or_say_why_not did not pass"; exit 1; }
# shellcheck source=lib/exact_counts.sh
. /pmu/checks/lib/exact_counts.sh
expect_exact_counts /tmp/rust_hardware.txt
