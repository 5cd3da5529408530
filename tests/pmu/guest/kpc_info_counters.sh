# kpc info on the emulated PMU (issue 17, section 4.2): the counter count the kernel logged
# at boot ("N counters available": the cycle counter and N-1 event counters), never 0 and 0.
# usage: sh kpc_info_counters.sh KPC
KPC=${1:?usage: kpc_info_counters.sh KPC}
total=$(dmesg | sed -n 's/.*hw perfevents: enabled with .*, \([0-9]*\) counters available.*/\1/p' | head -n 1)
[ -n "$total" ] || { echo "FAIL: no 'N counters available' line in the boot log"; exit 1; }
line=$("$KPC" info | grep '^counters:')
echo "boot log: $total counters; kpc info: $line"
want="counters:           1 fixed, $((total - 1)) configurable"
[ "$line" = "$want" ] || { echo "FAIL: want '$want'"; exit 1; }
