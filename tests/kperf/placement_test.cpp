// Counter placement: counters_mask constraints, order independence, and conflict
// messages that name the events and the counters they compete for.
#include <algorithm>

#include "kperf_fixture.hpp"
#include "sim_rates.hpp"

namespace kperf_test {
namespace {

using Placement = KperfTest;

// The events are placed and each value is its own event's: the simulator's rates tell a
// count read from another event's counter (a permuted slot map) from the right one.
void expect_counts(kp_sampler_t *s, std::vector<const char *> names) {
    Thread t;
    ASSERT_EQ(new_thread(&t, s, names), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    burn(5);
    std::vector<uint64_t> v(names.size());
    ASSERT_EQ(kp_thread_sample(t.get(), v.data(), v.size()), KP_OK) << last_message();
    expect_sim_rates(names, v.data());
}

TEST_F(Placement, AnyOrderOfAFeasibleSetIsPlaced) {
    Sampler s = must_sampler();
    // INST_ALL may only use counter 7; the other two counters 5-7. A first-fit in the
    // user's order fails for half of these orders.
    std::vector<const char *> names = {"INST_BRANCH", "BRANCH_MISPRED_NONSPEC", "INST_ALL"};
    std::sort(names.begin(), names.end(), [](const char *a, const char *b) { return std::string(a) < b; });
    int orders = 0;
    do {
        SCOPED_TRACE(std::string(names[0]) + ", " + names[1] + ", " + names[2]);
        expect_counts(s.get(), names);
        ++orders;
    } while (std::next_permutation(names.begin(), names.end(),
                                   [](const char *a, const char *b) { return std::string(a) < b; }));
    EXPECT_EQ(orders, 6);
}

TEST_F(Placement, AllTenCountersCanBeFilled) {
    Sampler s = must_sampler();
    // Five events for any counter, two for counters 5-7, one for 7 only; no two
    // configurable events share a rate, so any two swapped values show.
    expect_counts(s.get(), {"L1D_CACHE_MISS_LD", "L1D_CACHE_MISS_ST", "L1D_TLB_MISS",
                            "L1D_TLB_ACCESS", "MAP_SIMD_UOP", "INST_BRANCH",
                            "L1D_CACHE_MISS_LD_NONSPEC", "INST_ALL", "cycles", "instructions"});
}

TEST_F(Placement, SameOnlyCounterIsAConflictNamingBoth) {
    Sampler s = must_sampler();
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"INST_ALL", "INST_LDST"}), KP_ECONFLICT);
    std::string msg = last_message();
    EXPECT_NE(msg.find("'INST_ALL'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'INST_LDST'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("needs counter 7, already used by"), std::string::npos) << msg;
}

TEST_F(Placement, FourEventsForThreeCountersNameTheGroup) {
    Sampler s = must_sampler();
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"cycles", "branches", "branch-misses", "l1d-load-misses",
                                       "INST_ALL"}),
              KP_ECONFLICT);
    std::string msg = last_message();
    for (const char *n : {"branches (INST_BRANCH)", "branch-misses (BRANCH_MISPRED_NONSPEC)",
                          "l1d-load-misses (L1D_CACHE_MISS_LD_NONSPEC)", "INST_ALL"})
        EXPECT_NE(msg.find(n), std::string::npos) << n << " in: " << msg;
    EXPECT_NE(msg.find("counters 5-7"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("'cycles"), std::string::npos) << "cycles is not part of the conflict: " << msg;
    // Without INST_ALL the same events fit.
    expect_counts(s.get(), {"cycles", "branches", "branch-misses", "l1d-load-misses"});
}

TEST_F(Placement, ElevenEventsNeverFit) {
    Sampler s = must_sampler();
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"L1D_CACHE_MISS_LD", "L1D_CACHE_MISS_ST", "L1D_TLB_MISS",
                                       "MAP_STALL", "L1I_CACHE_MISS_DEMAND", "INST_BRANCH",
                                       "BRANCH_MISPRED_NONSPEC", "INST_ALL", "cycles",
                                       "instructions", "L1D_TLB_FILL"}),
              KP_ECONFLICT);
    EXPECT_NE(last_message().find("compete for counters"), std::string::npos) << last_message();
}

class PlacementM4 : public KperfTest {
protected:
    const char *chip() const override { return "as4"; }
};

TEST_F(PlacementM4, CounterSevenEventListedLastStillFits) {
    Sampler s = must_sampler();
    // Five events allowed on counters 2-7 and one on 7 only: feasible only if the
    // counter-7 event gets counter 7, whatever the order.
    expect_counts(s.get(), {"INST_BRANCH", "BRANCH_MISPRED_NONSPEC", "L1D_CACHE_MISS_LD_NONSPEC",
                            "INST_BRANCH_CALL", "INST_BRANCH_TAKEN", "INST_INT_ALU"});
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"INST_BRANCH", "BRANCH_MISPRED_NONSPEC",
                                       "L1D_CACHE_MISS_LD_NONSPEC", "INST_BRANCH_CALL",
                                       "INST_BRANCH_TAKEN", "INST_BRANCH_RET", "INST_INT_ALU"}),
              KP_ECONFLICT);
    EXPECT_NE(last_message().find("counters 2-7"), std::string::npos) << last_message();
}

}  // namespace
}  // namespace kperf_test

namespace kperf_test {
namespace {

TEST_F(Placement, KpepRefusingOneOrderIsRetriedInAnother) {
    Sampler s = must_sampler();
    // kperfdata's allocator refuses the first add (error 12): libkpc starts over in
    // another order instead of failing, and each value still lands in its own event's place.
    ASSERT_EQ(kpsim_data_fail("kpep_config_add_event", 2, 12), 0);
    expect_counts(s.get(), {"INST_ALL", "branches", "branch-misses", "L1D_CACHE_MISS_LD", "cycles"});
    EXPECT_EQ(kpsim_data_live_configs(), configs_) << "the refused configuration was freed";
}

TEST_F(Placement, KpepRefusingEveryOrderIsAConflictQuotingIt) {
    Sampler s = must_sampler();
    for (int nth = 1; nth <= 200; ++nth) ASSERT_EQ(kpsim_data_fail("kpep_config_add_event", nth, 12), 0);
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"branches", "branch-misses"}), KP_ECONFLICT);
    std::string msg = last_message();
    EXPECT_NE(msg.find("kperfdata refused every order"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CONFLICTING_EVENTS"), std::string::npos) << msg;
    kpsim_data_clear_faults();
}

}  // namespace
}  // namespace kperf_test
