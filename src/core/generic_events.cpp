#include "core/generic_events.hpp"

#include <iterator>

namespace kpc {
namespace {

using G = GenericId;

constexpr GenericEvent kGeneric[] = {
    {G::cycles, "cycles", false, "Core clock cycles while the thread runs (user and, where permitted, kernel mode)"},
    {G::instructions, "instructions", false, "Instructions retired"},
    {G::branches, "branches", false, "Branch instructions retired"},
    {G::branch_misses, "branch-misses", false, "Branch instructions retired that were mispredicted"},
    {G::cache_references, "cache-references", false, "Accesses to the last cache level the backend reports (Linux: LLC references; Apple: L1D loads+stores that reached the cache)"},
    {G::cache_misses, "cache-misses", false, "Misses in that same cache level (Linux: LLC misses; Apple: L1D load misses, the closest event Apple exposes)"},
    {G::l1d_load_misses, "l1d-load-misses", false, "Loads that missed the level-1 data cache"},
    {G::l1d_store_misses, "l1d-store-misses", false, "Stores that missed the level-1 data cache"},
    {G::l1i_load_misses, "l1i-load-misses", false, "Instruction fetches that missed the level-1 instruction cache"},
    {G::dtlb_load_misses, "dtlb-load-misses", false, "Loads that missed the first-level data TLB"},
    {G::itlb_load_misses, "itlb-load-misses", false, "Instruction fetches that missed the first-level instruction TLB"},
    {G::stalled_cycles_frontend, "stalled-cycles-frontend", false, "Cycles the front end delivered no instruction to dispatch"},
    {G::stalled_cycles_backend, "stalled-cycles-backend", false, "Cycles dispatch was blocked by the back end"},
    {G::ref_cycles, "ref-cycles", false, "Cycles of a constant-rate reference clock, unaffected by frequency scaling"},
    {G::p_cycles, "p-cycles", false, "Core clock cycles while the thread runs on performance (P) cores, perf level 0"},
    {G::e_cycles, "e-cycles", false, "Core clock cycles while the thread runs on efficiency (E) cores, perf level 1"},
    {G::p_instructions, "p-instructions", false, "Instructions retired on performance (P) cores, perf level 0"},
    {G::e_instructions, "e-instructions", false, "Instructions retired on efficiency (E) cores, perf level 1"},
    {G::task_clock, "task-clock", true, "CPU time of the thread, in nanoseconds", KP_EVENT_UNIT_NANOSECONDS},
    {G::cpu_clock, "cpu-clock", true, "CPU time of the thread from the per-CPU clock, in nanoseconds", KP_EVENT_UNIT_NANOSECONDS},
    {G::page_faults, "page-faults", true, "Page faults (minor and major)"},
    {G::minor_faults, "minor-faults", true, "Page faults served without I/O"},
    {G::major_faults, "major-faults", true, "Page faults that needed I/O"},
    {G::context_switches, "context-switches", true, "Times the thread was switched off a CPU"},
    {G::cpu_migrations, "cpu-migrations", true, "Times the thread moved to another CPU"},
};

}  // namespace

const GenericEvent *generic_events(size_t *count) {
    *count = std::size(kGeneric);
    return kGeneric;
}

const GenericEvent *find_generic(std::string_view name) {
    for (const GenericEvent &g : kGeneric)
        if (name == g.name) return &g;
    return nullptr;
}

}  // namespace kpc
