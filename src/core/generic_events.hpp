// libkpc's generic event names: one meaning on every backend (see docs/events.md).
// Backends map each one to their native encoding; this file only names and describes them.
#pragma once

#include <cstddef>
#include <string_view>

#include "kpc/event.h"

namespace kpc {

enum class GenericId {
    cycles, instructions, branches, branch_misses, cache_references, cache_misses,
    l1d_load_misses, l1d_store_misses, l1i_load_misses, dtlb_load_misses, itlb_load_misses,
    stalled_cycles_frontend, stalled_cycles_backend, ref_cycles,
    // Per core type on hybrid CPUs: P = performance cores (perf level 0), E = efficiency
    // cores (perf level 1).
    p_cycles, e_cycles, p_instructions, e_instructions,
    task_clock, cpu_clock, page_faults, minor_faults, major_faults, context_switches,
    cpu_migrations,
};

struct GenericEvent {
    GenericId id;
    const char *name;
    bool software;  // counted by the OS kernel rather than the PMU
    const char *description;
    kp_event_unit_t unit = KP_EVENT_UNIT_COUNT;
};

// All generic events, hardware first, in a stable order.
const GenericEvent *generic_events(size_t *count);
const GenericEvent *find_generic(std::string_view name);

}  // namespace kpc
