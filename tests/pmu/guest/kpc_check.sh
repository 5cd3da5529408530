# kpc check on the emulated PMU: every check of an event this PMU counts passes (exit 0),
# and the exact instruction count of its loop is among them.
# usage: sh kpc_check.sh KPC
KPC=${1:?usage: kpc_check.sh KPC}
"$KPC" check > /tmp/check.txt 2>&1
rc=$?
cat /tmp/check.txt
fail=0
[ $rc = 0 ] || { echo "FAIL: kpc check exited $rc (3: a check failed)"; fail=1; }
grep -i 'instructions' /tmp/check.txt | grep -i 'exact' | grep -qi 'pass' ||
    { echo "FAIL: no passing 'instructions exact' line"; fail=1; }
exit $fail
