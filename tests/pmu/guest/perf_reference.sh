# The second reference: Debian's own perf (linux-perf:arm64, packed into the guest) and
# kpc stat count the same static command; both count user-space instructions and cycles
# from the exec, so they must agree to a few instructions (stack addresses move start-up).
# usage: sh perf_reference.sh KPC   (PMU_BIN holds perf and pmu_workload)
KPC=${1:?usage: perf_reference.sh KPC}
W=$PMU_BIN/pmu_workload
PERF=$PMU_BIN/perf
SLACK=2000   # one thread: start-up moves by a few instructions
TSLACK=50000 # threads and children: runs vary by up to ~40,000; a loop here is 600,000
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -x "$PERF" ] || { echo "FAIL: $PERF missing: scripts/ci/pmu-guest.sh packs linux-perf:arm64"; exit 1; }
for cmd in "loop 1000000" "threads 3 300000" "forkexec 2 300000"; do
    "$PERF" stat -x, -e instructions:u,cycles:u -o /tmp/perf.csv -- "$W" $cmd || bad "perf stat $cmd exited $?"
    "$KPC" stat -x, -e instructions,cycles -o /tmp/kpc.csv -- "$W" $cmd || bad "kpc stat $cmd exited $?"
    for ev in instructions cycles; do
        p=$(awk -F, -v ev="$ev:u" '$3 == ev { print $1; exit }' /tmp/perf.csv)
        k=$(awk -F, -v ev="$ev" '$3 == ev { print $1; exit }' /tmp/kpc.csv)
        echo "$cmd: $ev perf $p, kpc $k"
        s=$SLACK; [ "${cmd%% *}" = loop ] || s=$TSLACK
        awk -v p="$p" -v k="$k" -v s=$s 'BEGIN { d = p - k; exit !(p > 0 && d <= s && d >= -s) }' ||
            bad "$cmd: $ev: perf $p and kpc $k differ by more than $s"
    done
done
[ $fail = 0 ] || { cat /tmp/perf.csv /tmp/kpc.csv; }
exit $fail
