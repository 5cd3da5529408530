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

// `db_name` is the kpep_db struct's name field ("a14"; empty when the layout could not be
// validated), `api_name` what kpep_db_name() returned (the short name, or the marketing
// name "Apple A14/M1" as reported on real Macs), `marketing_name` the struct's own (may be
// empty); `architecture` is KP_KPEP_ARCH_* or UINT32_MAX when unknown. The short name wins;
// a marketing name is the fallback. Never fails: unknown databases give Generation::unknown.
Chip identify_chip(std::string_view db_name, std::string_view api_name,
                   std::string_view marketing_name, uint32_t architecture);

// "M1", "M4", "A-series", "Intel", "unknown".
const char *generation_name(Generation g);

}  // namespace kpc::kperf
