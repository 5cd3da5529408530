# kpc check on the emulated PMU: every check of an event this PMU counts passes (exit 0),
# the exact instruction count of its loop is among them, and the counter count it reports
# is the one the kernel logged at boot (kpc check once printed 0 and 0 where that was unknown).
# usage: sh kpc_check.sh KPC
KPC=${1:?usage: kpc_check.sh KPC}
"$KPC" check > /tmp/check.txt 2>&1
rc=$?
cat /tmp/check.txt
fail=0
[ $rc = 0 ] || { echo "FAIL: kpc check exited $rc (3: a check failed)"; fail=1; }
grep -i 'instructions' /tmp/check.txt | grep -i 'exact' | grep -qi 'pass' ||
    { echo "FAIL: no passing 'instructions exact' line"; fail=1; }
total=$(dmesg | sed -n 's/.*hw perfevents: enabled with .*, \([0-9]*\) counters available.*/\1/p' | head -n 1)
want="1 fixed, $((total - 1)) configurable"
grep -q "counters: *$want\$" /tmp/check.txt ||
    { echo "FAIL: kpc check's counters line is not '$want' (boot log: $total counters)"; fail=1; }
exit $fail
