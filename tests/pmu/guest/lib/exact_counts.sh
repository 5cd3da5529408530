# Sourced by the bindings' hardware checks in the guest (not a check itself: pmu-guest.sh
# copies it to /pmu/checks/lib).
# expect_exact_counts FILE: FILE holds a test's "counted: I instructions, C cycles" line;
# exits 1 unless it is there (the test took its counting branch) and C = 2^N x I, N being
# the guest's -icount shift.
expect_exact_counts() {
    N=${KPC_PMU_GUEST_ICOUNT_SHIFT:?not in the emulated-PMU guest}
    # shellcheck disable=SC2046 # two numbers, split on purpose
    set -- $(sed -n 's/.*counted: \([0-9]*\) instructions, \([0-9]*\) cycles.*/\1 \2/p' "$1")
    [ $# = 2 ] || { echo "FAIL: no 'counted:' line: the test did not take its counting branch"; exit 1; }
    echo "instructions $1, cycles $2, shift $N"
    [ "$2" = $(( $1 << N )) ] || { echo "FAIL: cycles $2 != 2^$N x instructions $1 = $(( $1 << N ))"; exit 1; }
}
