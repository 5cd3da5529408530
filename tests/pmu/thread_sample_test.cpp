// kp_thread_sample on exact counters: a loop of n iterations reads 2n instructions plus
// one constant (what the sampling itself costs in user space), the same at every size;
// cycles are 2^N per instruction under QEMU's -icount shift=N.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstdint>

#include "exact_loop.hpp"

namespace {

struct Delta {
    uint64_t cycles, instructions;
};

Delta measure(kp_thread_t *t, uint64_t n) {
    uint64_t a[2] = {0, 0}, b[2] = {0, 0};
    EXPECT_EQ(kp_thread_sample(t, a, 2), KP_OK) << kp_error_last_message();
    kpc_pmu::exact_loop(n);
    EXPECT_EQ(kp_thread_sample(t, b, 2), KP_OK) << kp_error_last_message();
    return {b[0] - a[0], b[1] - a[1]};
}

class ThreadSample : public ::testing::Test {
protected:
    void SetUp() override {
        KPC_PMU_REQUIRE_GUEST();
        ASSERT_EQ(kp_sampler_new(&s_, nullptr), KP_OK) << kp_error_last_message();
        const char *names[] = {"cycles", "instructions"};
        ASSERT_EQ(kp_thread_new(&t_, s_, names, 2), KP_OK) << kp_error_last_message();
        ASSERT_EQ(kp_thread_start(t_), KP_OK) << kp_error_last_message();
        measure(t_, 10);  // warm: first calls fault in code and data
    }
    void TearDown() override {
        kp_thread_free(t_);
        kp_sampler_free(s_);
    }
    kp_sampler_t *s_ = nullptr;
    kp_thread_t *t_ = nullptr;
};

TEST_F(ThreadSample, TwoInstructionsPerIterationPlusOneConstant) {
    const uint64_t sizes[] = {1000, 10000, 100000};
    int64_t offset[3];
    for (int i = 0; i < 3; ++i) {
        Delta d = measure(t_, sizes[i]);
        offset[i] = static_cast<int64_t>(d.instructions) - static_cast<int64_t>(2 * sizes[i]);
        std::printf("n=%llu: %llu instructions, offset %lld\n", (unsigned long long)sizes[i],
                    (unsigned long long)d.instructions, (long long)offset[i]);
    }
    EXPECT_GT(offset[0], 0);       // the sample calls' own instructions
    EXPECT_LT(offset[0], 100000);  // a few thousand at most (not a second loop)
    EXPECT_EQ(offset[1], offset[0]);
    EXPECT_EQ(offset[2], offset[0]);
}

TEST_F(ThreadSample, RepeatedMeasurementsAreIdentical) {
    Delta first = measure(t_, 5000);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(measure(t_, 5000).instructions, first.instructions);
}

TEST_F(ThreadSample, CyclesAreTwoToTheShiftPerInstruction) {
    const uint64_t per = uint64_t(1) << kpc_pmu::icount_shift();
    for (uint64_t n : {1000u, 100000u}) {
        Delta d = measure(t_, n);
        EXPECT_EQ(d.cycles, per * d.instructions) << "n=" << n;
    }
}

TEST_F(ThreadSample, StoppedHandleCountsNothing) {
    uint64_t a[2], b[2];
    ASSERT_EQ(kp_thread_sample(t_, a, 2), KP_OK);
    ASSERT_EQ(kp_thread_stop(t_), KP_OK);
    kpc_pmu::exact_loop(100000);
    ASSERT_EQ(kp_thread_start(t_), KP_OK);
    ASSERT_EQ(kp_thread_sample(t_, b, 2), KP_OK);
    // Only the stop/start calls' own user-space instructions, far below the 200,000 looped.
    EXPECT_LT(b[1] - a[1], 20000u);
}

}  // namespace
