// How each generic event is encoded for perf_event_open.
#pragma once

#include <cstdint>
#include <string>

#include "core/generic_events.hpp"

namespace kpc::perf {

struct Encoding {
    uint32_t type;
    uint64_t config;
    std::string native_name;  // the kernel's name for it, e.g. "PERF_COUNT_HW_CPU_CYCLES"
    std::string unavailable = {};  // non-empty: this machine cannot count it, and why
};

// Per-core-type events read sysfs (core_type_events.hpp); the others are constants.
Encoding encode_generic(GenericId id);

}  // namespace kpc::perf
