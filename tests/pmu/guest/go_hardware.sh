# The Go binding's hardware test (bindings/go/hardware_test.go), cross-built with cgo by
# pmu-guest.sh. On x86 CI it skips (a direct perf_event_open finds no PMU); here the kernel
# counts instructions, so it must run and pass: cycles and instructions grow with work.
# usage: sh go_hardware.sh KPC   (in the guest; PMU_BIN holds kpc_go.test)
T=$PMU_BIN/kpc_go.test
[ -x "$T" ] || { echo "FAIL: $T is missing (pmu-guest.sh cross-builds it with Go)"; exit 1; }
cd /tmp || exit 1
"$T" -test.run '^TestHardware' -test.v > /tmp/go_hardware.txt 2>&1
rc=$?
cat /tmp/go_hardware.txt
[ $rc = 0 ] || { echo "FAIL: the Go test binary exited $rc"; exit 1; }
grep -q -- '--- PASS: TestHardwareCounting' /tmp/go_hardware.txt ||
    { echo "FAIL: TestHardwareCounting did not pass here (skipped?), where the PMU counts"; exit 1; }
