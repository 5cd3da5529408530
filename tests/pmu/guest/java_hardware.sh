# The Java binding's hardware test (bindings/java/tests/org/kpc/tests/HardwareTest.java) on
# Debian's arm64 JRE, cut down by pmu-guest.sh to java.base and java.logging, with the
# binding's classes and JUnit in /pmu/java and the cross-built libkpc_java.so in /pmu/lib.
# On x86 CI the test skips (the PMU probe cannot count); here it must pass through its
# counting branch (CtestRunner exits 77 on a skip), with exact deltas: cycles = 2^N x
# instructions.
# usage: sh java_hardware.sh KPC   (in the guest; PMU_BIN holds kpc_test_pmu_probe)
J=/pmu/java
[ -x $J/jre/bin/java ] || { echo "FAIL: $J/jre/bin/java is missing (pmu-guest.sh packs the arm64 JRE)"; exit 1; }
for f in $J/classes $J/junit.jar; do
    [ -e "$f" ] || { echo "FAIL: $f is missing (pmu-guest.sh packs the binding's classes and JUnit)"; exit 1; }
done
[ -x "$PMU_BIN/kpc_test_pmu_probe" ] || { echo "FAIL: $PMU_BIN/kpc_test_pmu_probe is missing"; exit 1; }
cd /tmp || exit 1
# As CTest runs it (bindings/java/CMakeLists.txt), plus what makes the JVM cheaper under
# emulation: C1 only, the serial collector, no perf-data file.
KPC_TEST_PMU_PROBE=$PMU_BIN/kpc_test_pmu_probe $J/jre/bin/java -ea -Xcheck:jni -XX:TieredStopAtLevel=1 \
    -XX:+UseSerialGC -XX:-UsePerfData -Djava.library.path=/pmu/lib -cp $J/classes:$J/junit.jar \
    org.kpc.tests.CtestRunner org.kpc.tests.HardwareTest > /tmp/java_hardware.txt 2>&1
rc=$?
cat /tmp/java_hardware.txt
[ $rc != 77 ] || { echo "FAIL: skipped here, where the PMU counts"; exit 1; }
[ $rc = 0 ] || { echo "FAIL: the JVM exited $rc"; exit 1; }
grep -q '^1 passed, 0 failed, 0 skipped$' /tmp/java_hardware.txt ||
    { echo "FAIL: HardwareTest did not pass alone"; exit 1; }
# shellcheck source=lib/exact_counts.sh
. /pmu/checks/lib/exact_counts.sh
expect_exact_counts /tmp/java_hardware.txt
