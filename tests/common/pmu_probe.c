/* Says, without libkpc, whether this thread can count hardware instructions (pmu_probe.h):
 * exits 0 when it can, else 1 with the kernel's reason on stdout. The bindings' hardware
 * tests (Java, Swift) skip only on 1, so a libkpc failure where the machine can count is a
 * failure, not a skip. CMake target kpc_test_pmu_probe (tests/CMakeLists.txt). */
#include <stdio.h>
#include <string.h>

#include "pmu_probe.h"

int main(void) {
    int err = kpc_test_probe_instructions();
    if (err != 0) {
        printf("perf_event_open(instructions): %s\n", strerror(err));
        return 1;
    }
    return 0;
}
