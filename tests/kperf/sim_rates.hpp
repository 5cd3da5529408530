// The kperf simulator's counter rates (tests/kperf_sim/README.md, "Counter-value model"), so a
// test can check that each count belongs to its own event: the simulator accrues every
// counter over the same CPU (or wall) time, each at its event's rate, so a count divided by
// its rate is the same for every event of one read. A slot map that sends an event's value
// to another event's place breaks that equality by the ratio of the two rates.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kperf_test {

// Milli-events per ns of CPU time; 0 when the README gives none (a name-derived rate).
inline uint64_t sim_rate(const char *name) {
    static const struct {
        const char *name;
        uint64_t milli_per_ns;
    } kRates[] = {
        {"cycles", 3000}, {"instructions", 6000}, {"branches", 1000},  // INST_BRANCH
        {"branch-misses", 10},                                         // BRANCH_MISPRED_NONSPEC
        {"l1d-load-misses", 20},                                       // L1D_CACHE_MISS_LD_NONSPEC
        {"FIXED_CYCLES", 3000}, {"FIXED_INSTRUCTIONS", 6000}, {"CORE_ACTIVE_CYCLE", 3000},
        {"INST_ALL", 6000}, {"RETIRE_UOP", 6600}, {"MAP_UOP", 6900}, {"SCHEDULE_UOP", 6800},
        {"MAP_INT_UOP", 3500}, {"MAP_LDST_UOP", 2200}, {"MAP_SIMD_UOP", 400},
        {"INST_INT_ALU", 2500}, {"INST_LDST", 1800}, {"INST_INT_LD", 1200}, {"INST_INT_ST", 600},
        {"INST_SIMD_ALU", 300}, {"INST_BRANCH", 1000}, {"INST_BRANCH_COND", 700},
        {"INST_BRANCH_TAKEN", 600}, {"INST_BRANCH_CALL", 80}, {"INST_BRANCH_RET", 80},
        {"INST_BRANCH_INDIR", 40}, {"BRANCH_MISPRED_NONSPEC", 10},
        {"BRANCH_COND_MISPRED_NONSPEC", 8}, {"L1D_TLB_ACCESS", 1800}, {"L1D_CACHE_MISS_LD", 25},
        {"L1D_CACHE_MISS_LD_NONSPEC", 20}, {"L1D_CACHE_MISS_ST", 10},
        {"L1D_CACHE_MISS_ST_NONSPEC", 8}, {"L1D_TLB_MISS", 5},
    };
    for (const auto &r : kRates)
        if (std::strcmp(r.name, name) == 0) return r.milli_per_ns;
    return 0;
}

// Each value of one read against its event's rate. The simulator's counts are exact up to
// its rounding to whole events (1 per counter), so 0.5 % + 2 events of slack is plenty;
// the rates of the events the tests pick differ by 20 % or more.
inline void expect_sim_rates(const std::vector<const char *> &names, const uint64_t *values) {
    size_t ref = names.size();  // the largest count sets the time base
    for (size_t i = 0; i < names.size(); ++i) {
        ASSERT_NE(sim_rate(names[i]), 0u) << names[i] << " has no documented simulator rate";
        if (ref == names.size() || values[i] > values[ref]) ref = i;
    }
    ASSERT_GT(values[ref], 1000u) << "too little work to compare rates";
    const double per_milli = static_cast<double>(values[ref]) / static_cast<double>(sim_rate(names[ref]));
    for (size_t i = 0; i < names.size(); ++i) {
        const double expected = per_milli * static_cast<double>(sim_rate(names[i]));
        EXPECT_NEAR(static_cast<double>(values[i]), expected, expected * 0.005 + 2)
            << names[i] << " (rate " << sim_rate(names[i]) << ") read " << values[i] << "; "
            << names[ref] << " (rate " << sim_rate(names[ref]) << ") read " << values[ref]
            << ": a count in another event's place";
    }
}

}  // namespace kperf_test
