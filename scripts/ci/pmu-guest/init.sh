#!/bin/sh
# /init of the emulated-PMU guest (scripts/ci/pmu-guest.sh packs it; contract in
# tests/pmu/README.md). Runs every GoogleTest program in /pmu/tests and every check script
# in /pmu/checks, prints one "PMU-RESULT PASS|FAIL|SKIP name[: reason]" line per test,
# then "PMU-DONE" and powers off. The host trusts nothing that is not on such a line.
/bin/busybox --install -s /bin
export PATH=/pmu/bin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
echo 1 > /proc/sys/kernel/printk  # keep kernel messages off the result lines

# QEMU's -icount shift, from the kernel command line: tests learn from it, not from
# libkpc, that they run on the exact emulated PMU.
for word in $(cat /proc/cmdline); do
    case "$word" in
        kpc_icount_shift=*) KPC_PMU_GUEST_ICOUNT_SHIFT=${word#kpc_icount_shift=} ;;
        # PROGRAM:FILTER: run only these tests (the host's short second boot, 2 vCPUs).
        kpc_only=*) ONLY=${word#kpc_only=} ;;
    esac
done
export KPC_PMU_GUEST_ICOUNT_SHIFT
export LD_LIBRARY_PATH=/pmu/lib
export KPC_BACKEND=perf_event
export KPC=/pmu/bin/kpc PMU_BIN=/pmu/bin
echo -1 > /proc/sys/kernel/perf_event_paranoid  # -a and counting other processes
echo 1 > /proc/sys/kernel/perf_user_access 2>/dev/null
# Debian's arm64 kernel backs anonymous memory with huge pages by default ("always"): one
# fault per 2 MiB. The page-fault tests assume one per 4 KiB page, as on Debian's amd64.
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null

# The guest time so far is mostly the kernel unpacking the initramfs: it grows with it.
echo "PMU-GUEST booted: $(uname -r), icount shift $KPC_PMU_GUEST_ICOUNT_SHIFT, $(grep -c ^processor /proc/cpuinfo) CPUs, \
$(cut -d ' ' -f 1 /proc/uptime) s of guest time"
dmesg | grep -i 'hw perfevents' | sed 's/^/PMU-GUEST /'

# One GoogleTest program: its output, then a result line per test (a skip with the reason
# gtest printed after "Skipped"), and a FAIL for the program if it exited non-zero
# without saying which test failed (a crash).
run_gtest() {
    name=$(basename "$1")${2:+-only}
    start=$(date +%s)
    "$1" --gtest_color=no ${2:+--gtest_filter="$2"} > /tmp/out 2>&1
    rc=$?
    sed "s/^/[$name] /" /tmp/out
    echo "PMU-TIME $name $(( $(date +%s) - start )) s"
    awk -v prog="$name" -v rc="$rc" '
        /^\[ RUN      \]/ { skipping = 0 }
        / Skipped$/ { skipping = 1; reason = ""; next }
        skipping && reason == "" && NF { reason = $0 }
        /^\[       OK \]/ { print "PMU-RESULT PASS " prog "/" $4; n++ }
        /^\[  FAILED  \] [A-Za-z0-9_\/.]+ \(/ { print "PMU-RESULT FAIL " prog "/" $4; n++; failed++ }
        /^\[  SKIPPED \] [A-Za-z0-9_\/.]+ \(/ { print "PMU-RESULT SKIP " prog "/" $4 ": " reason; n++ }
        END {
            if (rc != 0 && failed == 0) print "PMU-RESULT FAIL " prog ": exited " rc " without a failed test (crashed?)"
            if (n == 0 && rc == 0) print "PMU-RESULT FAIL " prog ": ran no test"
        }' /tmp/out
}

# One check script: exit 0 passes, 77 skips (its last line says why), anything else fails.
run_check() {
    name=$(basename "$1")
    start=$(date +%s)
    sh "$1" "$KPC" > /tmp/out 2>&1
    rc=$?
    sed "s/^/[$name] /" /tmp/out
    echo "PMU-TIME $name $(( $(date +%s) - start )) s"
    case $rc in
        0) echo "PMU-RESULT PASS $name" ;;
        77) echo "PMU-RESULT SKIP $name: $(tail -n 1 /tmp/out)" ;;
        *) echo "PMU-RESULT FAIL $name: exit $rc" ;;
    esac
}

cd /tmp
if [ -n "${ONLY:-}" ]; then
    run_gtest "/pmu/tests/${ONLY%%:*}" "${ONLY#*:}"
else
    for t in /pmu/tests/*_test; do [ -x "$t" ] && run_gtest "$t"; done
    for c in /pmu/checks/*.sh; do [ -f "$c" ] && run_check "$c"; done
fi
echo "PMU-DONE"
sync
poweroff -f
