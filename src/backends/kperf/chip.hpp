// Which CPU a kpep database describes, from its name ("a14" -> M1 generation, ...).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kpc::kperf {

// PMU event-set generations: chips of one generation share event names and selectors.
enum class Generation { unknown, apple_a_series, m1, m2, m3, m4, m5, intel };

struct Chip {
    Generation generation = Generation::unknown;
    std::string db_name;  // kp_sampler_cpu_id
    std::string name;     // kp_sampler_cpu_name, e.g. "Apple M1"
    std::string pmu;      // kp_sampler_pmu_name, e.g. "Apple PMU (a14, M1 generation)"
};

// `marketing_name` is the database's own (may be empty); `architecture` is KP_KPEP_ARCH_*
// or UINT32_MAX when unknown. Never fails: unknown databases give Generation::unknown.
Chip identify_chip(std::string_view db_name, std::string_view marketing_name,
                   uint32_t architecture);

// "M1", "M4", "A-series", "Intel", "unknown".
const char *generation_name(Generation g);

}  // namespace kpc::kperf
