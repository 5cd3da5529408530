// CPU and PMU identification on Linux, from /proc/cpuinfo, sysfs and CPUID.
#pragma once

#include <cstdint>
#include <string>

#include "core/backend.hpp"

namespace kpc::perf {

struct PmuShape {
    CpuInfo cpu;
    uint32_t fixed = 0;         // fixed-function counters (x86 CPUID), 0 if unknown or no PMU
    uint32_t configurable = 0;  // general-purpose counters, 0 if unknown or no PMU
    bool has_pmu = false;       // a hardware PMU is registered with perf_event
    bool probe_arm = false;     // an Arm PMU: its counters are counted by probe_arm_counters()
    std::string unknown;        // non-empty: why the counts are not known (never guessed)
};

PmuShape detect_pmu();

// Whether a PMU name under /sys/bus/event_source/devices is a CPU's core PMU: "cpu"
// (x86), "cpu_core"/"cpu_atom" (Intel hybrid), "armv8_*", "arm_*", "apple_*" (Arm, Asahi).
bool is_cpu_pmu_name(const std::string &name);

}  // namespace kpc::perf
