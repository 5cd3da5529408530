#include "backends/perf_event/generic_map.hpp"

#include <linux/perf_event.h>

#include "backends/perf_event/core_type_events.hpp"

namespace kpc::perf {
namespace {

constexpr uint64_t cache(uint64_t cache_id, uint64_t op, uint64_t result) {
    return cache_id | (op << 8) | (result << 16);
}

}  // namespace

Encoding encode_generic(GenericId id) {
    using G = GenericId;
    switch (id) {
    case G::cycles: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "PERF_COUNT_HW_CPU_CYCLES"};
    case G::instructions: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "PERF_COUNT_HW_INSTRUCTIONS"};
    case G::branches: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "PERF_COUNT_HW_BRANCH_INSTRUCTIONS"};
    case G::branch_misses: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "PERF_COUNT_HW_BRANCH_MISSES"};
    case G::cache_references: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "PERF_COUNT_HW_CACHE_REFERENCES"};
    case G::cache_misses: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "PERF_COUNT_HW_CACHE_MISSES"};
    case G::l1d_load_misses:
        return {PERF_TYPE_HW_CACHE, cache(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), "L1-dcache-load-misses"};
    case G::l1d_store_misses:
        return {PERF_TYPE_HW_CACHE, cache(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_MISS), "L1-dcache-store-misses"};
    case G::l1i_load_misses:
        return {PERF_TYPE_HW_CACHE, cache(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), "L1-icache-load-misses"};
    case G::dtlb_load_misses:
        return {PERF_TYPE_HW_CACHE, cache(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), "dTLB-load-misses"};
    case G::itlb_load_misses:
        return {PERF_TYPE_HW_CACHE, cache(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), "iTLB-load-misses"};
    case G::stalled_cycles_frontend: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND"};
    case G::stalled_cycles_backend: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "PERF_COUNT_HW_STALLED_CYCLES_BACKEND"};
    case G::ref_cycles: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "PERF_COUNT_HW_REF_CPU_CYCLES"};
    case G::p_cycles:
    case G::e_cycles:
    case G::p_instructions:
    case G::e_instructions: return encode_per_core_type(id);
    case G::task_clock: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "PERF_COUNT_SW_TASK_CLOCK"};
    case G::cpu_clock: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "PERF_COUNT_SW_CPU_CLOCK"};
    case G::page_faults: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "PERF_COUNT_SW_PAGE_FAULTS"};
    case G::minor_faults: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "PERF_COUNT_SW_PAGE_FAULTS_MIN"};
    case G::major_faults: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "PERF_COUNT_SW_PAGE_FAULTS_MAJ"};
    case G::context_switches: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "PERF_COUNT_SW_CONTEXT_SWITCHES"};
    case G::cpu_migrations: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "PERF_COUNT_SW_CPU_MIGRATIONS"};
    }
    return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "PERF_COUNT_SW_DUMMY"};
}

}  // namespace kpc::perf
