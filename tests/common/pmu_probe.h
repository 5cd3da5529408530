/* Asks the kernel, not libkpc, whether this thread can count hardware instructions (user
 * space only, which perf_event_paranoid 2 allows): 0 when it can, else the errno of
 * perf_event_open. Tests decide "this machine has no PMU" with it, never with the library
 * they test, so a libkpc failure where this succeeds is a failure, not a skip. C and C++. */
#ifndef KPC_TESTS_COMMON_PMU_PROBE_H
#define KPC_TESTS_COMMON_PMU_PROBE_H

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int kpc_test_probe_instructions(void) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd < 0) return errno;
    close((int)fd);
    return 0;
}

#endif
