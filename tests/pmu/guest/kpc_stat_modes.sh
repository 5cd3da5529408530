# kpc stat's other kinds of run on exact counters: -I, -p with a command, --per-thread,
# groups (one that fits, one larger than the PMU) and -a. Each is compared with the known
# instruction count of pmu_workload's loops (2 per iteration), start-up subtracted with a
# run of 0 iterations where the run includes it.
# usage: sh kpc_stat_modes.sh KPC   (in the guest; PMU_BIN holds pmu_workload)
KPC=${1:?usage: kpc_stat_modes.sh KPC}
W=$PMU_BIN/pmu_workload
N=1000000
SLACK=2000
# What runs besides the loops of a multi-threaded command varies by up to ~40,000
# instructions between runs (perf sees it too); a thread's loop is 2,000,000.
TSLACK=100000
fail=0
bad() { echo "FAIL: $*"; fail=1; }
near() {  # near GOT WANT WHAT [SLACK]
    awk -v g="$1" -v w="$2" -v s="${4:-$SLACK}" 'BEGIN { d = g - w; exit !(d <= s && d >= -s) }' ||
        bad "$3: got $1, want $2 +- ${4:-$SLACK}"
}
csv_count() { awk -F, -v ev="$1" '$3 == ev { print $1; exit }' "$2"; }

# The single-run truth: the static command, whole.
"$KPC" stat -x, -e instructions -o /tmp/one -- "$W" loop $((10 * N)) || bad "kpc stat exited $?"
whole=$(csv_count instructions /tmp/one)
echo "loop $((10 * N)): $whole instructions"

# -I 10 -x,: "time,value,unit,event,..." per interval, then the whole run's total
# (docs/cli.md: kpc prints the total where perf prints the last, partial interval). The
# intervals are the counts so far, so they add up to no more than the total, which is
# the whole run's.
"$KPC" stat -I 10 -x, -e instructions -o /tmp/iv -- "$W" loop $((10 * N)) || bad "-I: kpc stat exited $?"
cat /tmp/iv
lines=$(awk -F, '$4 == "instructions"' /tmp/iv | wc -l)
empty=$(awk -F, '$4 == "instructions" && $2 + 0 <= 0' /tmp/iv | wc -l)
sum=$(awk -F, '$4 == "instructions" { s += $2 } END { printf "%d", s }' /tmp/iv)
total=$(csv_count instructions /tmp/iv)
echo "-I 10: $lines intervals, sum $sum, total $total"
[ "$lines" -ge 1 ] || bad "-I 10: no interval over ~40 ms of guest time"
[ "$empty" = 0 ] || bad "-I 10: $empty intervals count nothing while the loop runs"
[ "$sum" -le "$total" ] || bad "-I 10: the intervals add up to $sum, more than the total $total"
near "$total" "$whole" "-I 10: the total against the run without -I"

# -p PID -- CMD: the workload waits at its gate; CMD opens it and waits for the workload's
# end (its stdout closing), so the counting spans all of the loops.
attach() {  # attach N [--per-thread]: prints kpc's -x output in /tmp/p
    rm -f /tmp/gate /tmp/ready
    mkfifo /tmp/gate /tmp/ready
    "$W" --gate threads 2 "$1" < /tmp/gate > /tmp/ready &
    pid=$!
    exec 4> /tmp/gate 3< /tmp/ready
    read -r word <&3
    [ "$word" = ready ] || bad "-p: the workload did not say ready"
    "$KPC" stat -x, -e instructions $2 -o /tmp/p -p $pid -- sh -c 'printf gg >&4; cat <&3 >/dev/null' ||
        bad "-p: kpc stat exited $?"
    exec 3<&- 4>&-
    wait $pid || bad "-p: the workload exited $?"
}
attach 0
p0=$(csv_count instructions /tmp/p)
attach $N
cat /tmp/p
p1=$(csv_count instructions /tmp/p)
echo "-p: $p0 without loops, $p1 with"
near $((p1 - p0)) $((4 * N)) "-p: two threads' loops" $TSLACK

# --per-thread: one row per thread (main + 2); each looping thread has its own 2N.
attach $N --per-thread
cat /tmp/p
rows=$(grep -c instructions /tmp/p)
[ "$rows" = 3 ] || bad "--per-thread: want 3 rows (main thread and 2 looping threads), got $rows"
looped=$(awk -F, -v n=$((2 * N)) -v s=$TSLACK '/instructions/ { for (i = 1; i <= NF; ++i) if ($i == "instructions") v = $(i - 2);
    if (v + 0 >= n && v + 0 <= n + s) k++ } END { print k + 0 }' /tmp/p)
[ "$looped" = 2 ] || bad "--per-thread: want 2 rows of 2N..2N+$TSLACK instructions, got $looped"

# A group that fits: both counted over the same time, cycles 2^shift per instruction.
"$KPC" stat -x, -e '{instructions,cycles}' -o /tmp/g -- "$W" loop $N || bad "group: kpc stat exited $?"
cat /tmp/g
gi=$(csv_count instructions /tmp/g)
gc=$(csv_count cycles /tmp/g)
near "$gc" $((gi << KPC_PMU_GUEST_ICOUNT_SHIFT)) "group: cycles against instructions"

# A group larger than the PMU (8 events, 7 counters) never runs: never a count of 0.
"$KPC" stat -x, -e '{cycles,instructions,r8,r11,r10008,r10011,r20008,r20011}' -o /tmp/g8 -- "$W" loop $N
rc=$?
cat /tmp/g8
echo "8-event group: exit $rc"
if [ $rc = 0 ]; then
    zeros=$(awk -F, '$1 == "0"' /tmp/g8 | wc -l)
    [ "$zeros" = 0 ] || bad "8-event group: $zeros events print 0 instead of <not counted>"
fi

# -a: every CPU while the command runs; the guest is idle besides it.
"$KPC" stat -a -x, -e instructions -o /tmp/a0 -- "$W" loop 0 || bad "-a: kpc stat exited $?"
"$KPC" stat -a -x, -e instructions -o /tmp/a1 -- "$W" loop $((10 * N)) || bad "-a: kpc stat exited $?"
cat /tmp/a1
a0=$(csv_count instructions /tmp/a0)
a1=$(csv_count instructions /tmp/a1)
echo "-a: $a0 with loop 0, $a1 with loop $((10 * N))"
# At least the loops; at most the loops plus 5% (kpc itself, the idle guest).
awk -v a="$a1" -v w="$whole" 'BEGIN { exit !(a >= w - 2000 && a <= w * 1.05) }' ||
    bad "-a: got $a1, want the command's $whole to +5%"
exit $fail
