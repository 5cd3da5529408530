// CPU and PMU identification on Linux, from /proc/cpuinfo, sysfs and CPUID.
#pragma once

#include <cstdint>

#include "core/backend.hpp"

namespace kpc::perf {

struct PmuShape {
    CpuInfo cpu;
    uint32_t fixed = 0;         // fixed-function counters (x86 CPUID leaf 0xA), 0 if unknown
    uint32_t configurable = 0;  // general-purpose counters, 0 if unknown or no PMU
    bool has_pmu = false;       // a hardware PMU is registered with perf_event
};

PmuShape detect_pmu();

}  // namespace kpc::perf
