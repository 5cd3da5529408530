// Sampling on the recount backend allocates nothing, for every thread_selfcounts kind the
// backend uses (totals, per perf level, with times, both).
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "alloc_counter.hpp"

namespace {

constexpr int kSamples = 2000;

// The thread_selfcounts kind each parameter set makes the backend use.
std::string kind_name(const ::testing::TestParamInfo<std::vector<const char *>> &info) {
    static const char *const kKinds[] = {"Totals", "PerPerfLevel", "WithTimes", "PerPerfLevelWithTimes"};
    return kKinds[info.index];
}

class RecountAlloc : public ::testing::TestWithParam<std::vector<const char *>> {
protected:
    void SetUp() override {
        setenv("KPC_BACKEND", "recount", 1);
        setenv("KPC_LIBSYSTEM_PATH", KPC_TEST_RCSIM, 1);
        ASSERT_EQ(kp_sampler_new(&s_, nullptr), KP_OK) << kp_error_last_message();
    }
    void TearDown() override {
        kp_thread_free(t_);
        kp_sampler_free(s_);
    }
    kp_sampler_t *s_ = nullptr;
    kp_thread_t *t_ = nullptr;
};

}  // namespace

TEST_P(RecountAlloc, SamplingAllocatesNothing) {
    const std::vector<const char *> &names = GetParam();
    kpc_alloc::begin();
    ASSERT_EQ(kp_thread_new(&t_, s_, names.data(), names.size()), KP_OK) << kp_error_last_message();
    const kpc_alloc::Stats setup = kpc_alloc::end();
    EXPECT_GT(setup.count, 0u) << "kp_thread_new allocates, yet the counter saw nothing";
    ASSERT_EQ(kp_thread_start(t_), KP_OK) << kp_error_last_message();
    std::vector<uint64_t> v(names.size());
    std::vector<uint8_t> complete(names.size());
    uint64_t enabled = 0, running = 0;
    kpc_alloc::begin();
    int bad = 0;
    for (int i = 0; i < kSamples; ++i) {
        bad += kp_thread_sample(t_, v.data(), v.size()) != KP_OK;
        bad += kp_thread_sample_full(t_, v.data(), complete.data(), v.size(), &enabled, &running) != KP_OK;
    }
    const kpc_alloc::Stats s = kpc_alloc::end();
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(s.count, 0u) << kpc_alloc::describe(s);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, RecountAlloc,
    ::testing::Values(std::vector<const char *>{"cycles", "instructions"},
                      std::vector<const char *>{"p-cycles", "e-cycles"},
                      std::vector<const char *>{"cycles", "task-clock"},
                      std::vector<const char *>{"p-instructions", "user-time", "system-time"}),
    kind_name);
