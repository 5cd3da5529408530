/* Says, without libkpc, whether this thread can count hardware instructions: exits 0 when a
 * perf_event_open of PERF_COUNT_HW_INSTRUCTIONS (user space only, which perf_event_paranoid
 * 2 allows) succeeds, else 1 with the kernel's reason on stdout. The bindings' hardware
 * tests (Java, Swift) skip only on 1, so a libkpc failure where the machine can count is a
 * failure, not a skip. CMake target kpc_test_pmu_probe (tests/CMakeLists.txt). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd < 0) {
        printf("perf_event_open(instructions): %s\n", strerror(errno));
        return 1;
    }
    close((int)fd);
    return 0;
}
