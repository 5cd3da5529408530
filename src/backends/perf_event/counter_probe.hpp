// How many counters an Arm core PMU has. The arm64 kernel says it only in its boot log
// ("N counters available"), not in sysfs, so libkpc asks the kernel's own group check: a
// perf_event group is refused (EINVAL) once its events need more counters than the PMU has.
#pragma once

#include <cstdint>
#include <string>

namespace kpc::perf {

struct CounterCount {
    uint32_t fixed = 0;         // the cycle counter
    uint32_t configurable = 0;  // the event counters
    std::string unknown;        // non-empty: why the count could not be learnt (then 0, 0)
};

// `pmu`: a directory name under /sys/bus/event_source/devices (e.g. "armv8_pmuv3_0").
CounterCount probe_arm_counters(const std::string &pmu);

}  // namespace kpc::perf
