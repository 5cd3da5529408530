# kpc stat with more events than the PMU has counters (12 on 7): the kernel multiplexes them,
# kpc scales each count by enabled/running as perf stat does and says how long each ran,
# and every scaled count comes within 5 % of the exact truth (instructions from a run of the
# one event; cycles 2^N per instruction). Unscaled counts are about half the truth, and
# counts scaled upside down about a quarter.
# usage: sh kpc_stat_multiplexed.sh KPC   (in the guest; PMU_BIN holds pmu_workload)
KPC=${1:?usage: kpc_stat_multiplexed.sh KPC}
W=$PMU_BIN/pmu_workload
N=20000000
"$KPC" stat -x, -e instructions -o /tmp/mx1 -- "$W" loop $N || { echo "FAIL: kpc stat exited $?"; exit 1; }
truth=$(awk -F, '$3 == "instructions" { print $1; exit }' /tmp/mx1)
EVENTS=instructions,r8,r10008,r20008,r30008,r40008,cycles,r11,r10011,r20011,r30011,r40011
"$KPC" stat -x, -e "$EVENTS" -o /tmp/mx -- "$W" loop $N || { echo "FAIL: kpc stat exited $?"; exit 1; }
cat /tmp/mx
echo "truth: $truth instructions"
awk -F, -v t="$truth" -v s="$((1 << KPC_PMU_GUEST_ICOUNT_SHIFT))" '
    NF >= 5 && $3 != "" {
        want = ($3 ~ /^(cycles|r11|r[1-4]0011)$/) ? t * s : t
        n++
        if ($5 + 0 < 100) partial++
        if ($1 < 0.95 * want || $1 > 1.05 * want) {
            printf "FAIL: %s = %s (counted %s%% of the time), want %d +- 5%%\n", $3, $1, $5, want
            bad = 1
        }
    }
    END {
        if (n != 12) { print "FAIL: " n " events in the output, want 12"; bad = 1 }
        if (partial == 0) { print "FAIL: no event was multiplexed (all ran 100%): the check proves nothing"; bad = 1 }
        exit bad
    }' /tmp/mx
