# kpc stat on exact counters, in text, -x, JSON and -r: the instructions of
# `pmu_workload loop N` minus those of `loop 0` are 2N in every format (the static
# command's start-up is the same every run), and cycles are 2^shift per instruction.
# usage: sh kpc_stat_outputs.sh KPC   (in the guest; PMU_BIN holds pmu_workload)
KPC=${1:?usage: kpc_stat_outputs.sh KPC}
W=$PMU_BIN/pmu_workload
N=1000000
SLACK=2000
fail=0
bad() { echo "FAIL: $*"; fail=1; }
near() {  # near GOT WANT WHAT
    awk -v g="$1" -v w="$2" -v s="$SLACK" 'BEGIN { d = g - w; exit !(d <= s && d >= -s) }' ||
        bad "$3: got $1, want $2 +- $SLACK"
}
# Text: "     2,001,234      instructions   # ..."
text_count() { awk -v ev="$1" '$2 == ev { gsub(",", "", $1); print $1; exit }' "$2"; }
csv_count() { awk -F, -v ev="$1" '$3 == ev { print $1; exit }' "$2"; }
# JSON: the "mean" of the event's "value" (pretty-printed, one key per line).
json_count() {
    awk -v ev="$1" '$0 ~ "\"name\": \"" ev "\"" { on = 1 }
        on && /"value":/ { val = 1 }
        on && val && /"mean":/ { sub(/.*"mean": */, ""); sub(/[,}].*/, ""); print; exit }' "$2"
}

for fmt in text csv json; do
    for n in 0 $N; do
        case $fmt in
            text) "$KPC" stat -e instructions,cycles -o /tmp/s.$n -- "$W" loop $n ;;
            csv) "$KPC" stat -x, -e instructions,cycles -o /tmp/s.$n -- "$W" loop $n ;;
            json) "$KPC" stat --json -e instructions,cycles -o /tmp/s.$n -- "$W" loop $n ;;
        esac || bad "$fmt: kpc stat exited $?"
    done
    cat /tmp/s.$N
    i0=$(${fmt}_count instructions /tmp/s.0)
    i1=$(${fmt}_count instructions /tmp/s.$N)
    c1=$(${fmt}_count cycles /tmp/s.$N)
    echo "$fmt: loop 0: $i0, loop $N: $i1 instructions, $c1 cycles"
    [ -n "$i0" ] && [ -n "$i1" ] && [ -n "$c1" ] || { bad "$fmt: no count in the output"; continue; }
    near $((i1 - i0)) $((2 * N)) "$fmt: instructions of the loop"
    near "$c1" $((i1 << KPC_PMU_GUEST_ICOUNT_SHIFT)) "$fmt: cycles = 2^shift x instructions"
done

# -r 3: every run counts the same.
"$KPC" stat -r 3 --json -e instructions -o /tmp/r.json -- "$W" loop $N || bad "-r 3: kpc stat exited $?"
# "raw_values": [ one per line ]
vals=$(awk '/"name": "instructions"/ { on = 1 } on && /"raw_values":/ { in_ = 1; next }
    in_ && /\]/ { exit } in_ { gsub(/[ ,]/, ""); printf "%s ", $0 }' /tmp/r.json)
echo "-r 3: raw values $vals"
set -- $vals
[ $# = 3 ] || bad "-r 3: want 3 raw values, got '$vals'"
for v in "$@"; do near "$v" "$1" "-r 3: run against the first run"; done
near "$1" "$i1" "-r 3 against the single JSON run"
exit $fail
