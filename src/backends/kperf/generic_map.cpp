#include "backends/kperf/generic_map.hpp"

#include <string>

namespace kpc::kperf {
namespace {

using G = GenericId;

enum GenMask : unsigned {
    kA = 1u << 0,   // pre-M1 A-series
    kM1 = 1u << 1,
    kM2 = 1u << 2,
    kM3 = 1u << 3,
    kM4 = 1u << 4,  // M4 and M5 share their events
    kIntel = 1u << 5,
    kAppleAll = kA | kM1 | kM2 | kM3 | kM4,
    kM1toM3 = kA | kM1 | kM2 | kM3,
};

unsigned bit_of(Generation g) {
    switch (g) {
    case Generation::apple_a_series: return kA;
    case Generation::m1: return kM1;
    case Generation::m2: return kM2;
    case Generation::m3: return kM3;
    case Generation::m4:
    case Generation::m5: return kM4;
    case Generation::intel: return kIntel;
    case Generation::unknown: break;
    }
    return 0;
}

struct Row {
    G id;
    unsigned generations;
    const char *names[3];  // unused slots are nullptr
    const char *note;
};

// One row per (generic event, generations). Apple candidates come from the kpep plists
// (docs/apple.md has the table); Intel ones from Apple's Intel databases as kpc_demo
// uses them. Order = preference.
const Row kRows[] = {
    // "Cycles" and "Instructions" are the fixed events' kpep aliases: a database that
    // renamed the fixed events still finds them, so these always use the fixed counters.
    {G::cycles, kAppleAll, {"FIXED_CYCLES", "Cycles", "CORE_ACTIVE_CYCLE"}, ""},
    {G::cycles, kIntel, {"CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.CORE"}, ""},
    {G::instructions, kAppleAll, {"FIXED_INSTRUCTIONS", "Instructions", "INST_ALL"}, ""},
    {G::instructions, kIntel, {"INST_RETIRED.ANY"}, ""},
    {G::branches, kAppleAll, {"INST_BRANCH"}, ""},
    {G::branches, kIntel, {"BR_INST_RETIRED.ALL_BRANCHES"}, ""},
    {G::branch_misses, kAppleAll, {"BRANCH_MISPRED_NONSPEC", "BRANCH_MISPREDICT"}, ""},
    {G::branch_misses, kIntel, {"BR_MISP_RETIRED.ALL_BRANCHES", "BR_INST_RETIRED.MISPRED"}, ""},
    {G::cache_references, kM4, {"ARM_L1D_CACHE", "INST_LDST"},
     "Apple has no last-level-cache events; this counts level-1 data cache accesses"},
    {G::cache_references, kM1toM3, {"INST_LDST"},
     "Apple has no last-level-cache events; this counts retired loads and stores"},
    {G::cache_references, kIntel, {"LONGEST_LAT_CACHE.REFERENCE"}, ""},
    {G::cache_misses, kAppleAll, {"L1D_CACHE_MISS_LD_NONSPEC", "L1D_CACHE_MISS_LD"},
     "Apple has no last-level-cache events; this counts level-1 data cache load misses"},
    {G::cache_misses, kIntel, {"LONGEST_LAT_CACHE.MISS"}, ""},
    {G::l1d_load_misses, kAppleAll, {"L1D_CACHE_MISS_LD_NONSPEC", "L1D_CACHE_MISS_LD"}, ""},
    {G::l1d_load_misses, kIntel, {"L1D.REPLACEMENT"}, ""},
    {G::l1d_store_misses, kAppleAll, {"L1D_CACHE_MISS_ST_NONSPEC", "L1D_CACHE_MISS_ST"}, ""},
    {G::l1i_load_misses, kAppleAll, {"L1I_CACHE_MISS_DEMAND"}, ""},
    {G::dtlb_load_misses, kAppleAll, {"L1D_TLB_MISS_NONSPEC", "L1D_TLB_MISS"},
     "Apple counts loads and stores that missed the L1 data TLB"},
    {G::dtlb_load_misses, kIntel, {"DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK"}, ""},
    {G::itlb_load_misses, kAppleAll, {"L1I_TLB_MISS_DEMAND"}, ""},
    {G::itlb_load_misses, kIntel, {"ITLB_MISSES.MISS_CAUSES_A_WALK"}, ""},
    {G::stalled_cycles_frontend, kM4, {"ARM_STALL_FRONTEND", "MAP_DISPATCH_BUBBLE"}, ""},
    {G::stalled_cycles_frontend, kM1toM3, {"MAP_DISPATCH_BUBBLE"},
     "counts dispatch bubbles, the closest front-end stall event before M4"},
    {G::stalled_cycles_backend, kM4, {"ARM_STALL_BACKEND", "MAP_STALL_DISPATCH"}, ""},
    {G::stalled_cycles_backend, kM1toM3, {"MAP_STALL_DISPATCH"},
     "counts cycles the map unit was stalled by dispatch back pressure"},
    {G::ref_cycles, kIntel, {"CPU_CLK_UNHALTED.REF_TSC"}, ""},
};

}  // namespace

GenericMapping generic_candidates(GenericId id, Generation g) {
    GenericMapping m;
    if (id == G::p_cycles || id == G::e_cycles || id == G::p_instructions ||
        id == G::e_instructions) {
        m.note = std::string(g == Generation::unknown ? "unknown to libkpc, and on every chip " : "") +
                 "kperf's counters are not split by core type; per-perf-level counts come "
                 "from the recount backend (KPC_BACKEND=recount)";
        return m;
    }
    if (g == Generation::unknown) {
        // A chip newer than this table keeps most of its predecessors' event names: try
        // every Apple candidate, newest generation first, and let the database decide.
        for (const Row &row : kRows) {
            if (row.id != id || !(row.generations & kAppleAll)) continue;
            for (const char *name : row.names) {
                if (!name) continue;
                bool seen = false;
                for (const char *c : m.candidates) seen = seen || std::string(c) == name;
                if (!seen) m.candidates.push_back(name);
            }
        }
        m.note = m.candidates.empty()
                     ? "unknown to libkpc, and no Apple chip has a counterpart; use the native "
                       "event names of its kpep database (kpc list)"
                     : "unknown to libkpc; this is the first name its kpep database has "
                       "among those earlier Apple chips use";
        return m;
    }
    const unsigned bit = bit_of(g);
    for (const Row &row : kRows) {
        if (row.id != id || !(row.generations & bit)) continue;
        for (const char *name : row.names)
            if (name) m.candidates.push_back(name);
        m.note = row.note;
        return m;
    }
    if (id == G::ref_cycles && g != Generation::intel)
        m.note = "Apple's PMU has no constant-rate reference-cycle counter; use "
                 "mach_absolute_time() for a constant-rate clock";
    else
        m.note = std::string("no ") + generation_name(g) +
                 " PMU event corresponds to it; see docs/apple.md for what each chip offers";
    return m;
}

}  // namespace kpc::kperf
