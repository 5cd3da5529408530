// p-cycles, e-cycles, p-instructions, e-instructions on Linux: the same event opened on
// the PMU of one core type of a hybrid CPU, found in sysfs (docs/events.md, "Per core type").
//   Intel hybrid: cpu_core (P) and cpu_atom (E); PERF_TYPE_HARDWARE with the PMU's type in
//     config bits 32-63 (PERF_PMU_TYPE_SHIFT), which every kernel that registers those PMUs
//     (5.13+) accepts.
//   Apple on Asahi Linux: apple_firestorm_pmu / apple_avalanche_pmu (P) and
//     apple_icestorm_pmu / apple_blizzard_pmu (E); attr.type = the PMU's own type and the
//     code from its events/cycles or events/instructions file. Arm PMUs accept the extended
//     PERF_TYPE_HARDWARE form only from Linux 6.6, the PMU's own type on every kernel.
#pragma once

#include <cstdint>
#include <string>

#include "backends/perf_event/generic_map.hpp"
#include "core/event.hpp"
#include "core/generic_events.hpp"

namespace kpc::perf {

constexpr const char *kPmuSysfsRoot = "/sys/bus/event_source/devices";

bool is_per_core_type(GenericId id);

// The encoding of a per-core-type event `id` on this machine, read from `pmu_root` (a
// directory laid out as /sys/bus/event_source/devices; tests pass a fake tree). When the
// machine cannot count it, `unavailable` says why and type/config are the legacy event.
Encoding encode_per_core_type(GenericId id, const std::string &pmu_root = kPmuSysfsRoot);

// The PMU type an event names explicitly: the extended type of a PERF_TYPE_HARDWARE or
// PERF_TYPE_HW_CACHE config, or a dynamic attr.type; 0 when the kernel picks the PMU.
uint32_t explicit_pmu_type(const Event &e);

}  // namespace kpc::perf
