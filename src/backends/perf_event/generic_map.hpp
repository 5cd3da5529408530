// How each generic event is encoded for perf_event_open.
#pragma once

#include <cstdint>

#include "core/generic_events.hpp"

namespace kpc::perf {

struct Encoding {
    uint32_t type;
    uint64_t config;
    const char *native_name;  // the kernel's name for it, e.g. "PERF_COUNT_HW_CPU_CYCLES"
};

Encoding encode_generic(GenericId id);

}  // namespace kpc::perf
