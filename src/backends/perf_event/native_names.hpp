// Native Linux event names: raw "r<hex>" codes, and PMU event names through libpfm4.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/event.hpp"

namespace kpc::perf {

// Fills `out` for "r<hex>" (throws KP_EUNKNOWN_EVENT with the fix for malformed hex) or,
// when built with libpfm4, a name libpfm4 can encode. Returns false for other names.
bool resolve_native(std::string_view name, Event &out);

// The unit of a perf_event encoding: nanoseconds for the software clocks, a count otherwise.
kp_event_unit_t perf_unit(uint32_t type, uint64_t config);

}  // namespace kpc::perf
