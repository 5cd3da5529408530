// kp_thread_calibrate's contract on counts known exactly (issue 20 item 3): the kperf
// simulator with CPU-time accrual off (KPSIM_CPU_TIME_COUNTS=0), where a thread's
// FIXED_INSTRUCTIONS move only by each read's kernel cost, taken in turn from
// KPSIM_READ_KERNEL_INSTRUCTIONS. An empty region then costs exactly the cost of the read
// that opens it, and the offset must be the smallest such cost: not the mean, the
// maximum or a sum. rounds 0 must mean 100 pairs, i.e. 200 reads.
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "kpsim.h"

namespace {

// Five costs (an odd count): pairs of reads open their regions on every second read, so
// over any 5 consecutive pairs each cost opens exactly one region, wherever the sequence
// stood when calibration began.
const std::vector<uint64_t> kCosts = {500, 300, 900, 200, 700};

class CalibrateSim : public ::testing::Test {
protected:
    void SetUp() override {
        std::string list;
        for (uint64_t c : kCosts) list += (list.empty() ? "" : ",") + std::to_string(c);
        setenv("KPSIM_READ_KERNEL_INSTRUCTIONS", list.c_str(), 1);
        setenv("KPSIM_CPU_TIME_COUNTS", "0", 1);
        kpsim_reset();
        kpsim_data_reset();
        kp_sampler_options_t opts;
        kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
        opts.backend = KP_BACKEND_KPERF;
        opts.kperf_path = KPSIM_TEST_KPERF;
        opts.kperfdata_path = KPSIM_TEST_KPERFDATA;
        ASSERT_EQ(kp_sampler_new(&s_, &opts), KP_OK) << kp_error_last_message();
        const char *names[] = {"cycles", "instructions"};
        ASSERT_EQ(kp_thread_new(&t_, s_, names, 2), KP_OK) << kp_error_last_message();
        ASSERT_EQ(kp_thread_start(t_), KP_OK) << kp_error_last_message();
    }
    void TearDown() override {
        kp_thread_free(t_);
        kp_sampler_free(s_);
        unsetenv("KPSIM_READ_KERNEL_INSTRUCTIONS");
        unsetenv("KPSIM_CPU_TIME_COUNTS");
        kpsim_reset();
    }
    static uint64_t calls() {
        kpsim_kernel_state st{};
        kpsim_kernel_get_state(&st);
        return st.calls;
    }
    kp_sampler_t *s_ = nullptr;
    kp_thread_t *t_ = nullptr;
};

TEST_F(CalibrateSim, EmptyRegionsCostOneReadEach) {
    // The premise the other tests rest on, seen through the public call alone: 2 × 5
    // empty regions cost each listed read cost twice, and cycles do not move.
    std::vector<uint64_t> seen;
    for (int i = 0; i < 10; ++i) {
        uint64_t a[2], b[2];
        ASSERT_EQ(kp_thread_sample(t_, a, 2), KP_OK) << kp_error_last_message();
        ASSERT_EQ(kp_thread_sample(t_, b, 2), KP_OK) << kp_error_last_message();
        EXPECT_EQ(b[0], a[0]) << "cycles moved with CPU-time accrual off";
        seen.push_back(b[1] - a[1]);
    }
    std::vector<uint64_t> want = kCosts;
    want.insert(want.end(), kCosts.begin(), kCosts.end());
    std::sort(seen.begin(), seen.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(seen, want);
}

TEST_F(CalibrateSim, OffsetIsTheSmallestPairNotTheMeanMaximumOrSum) {
    const uint64_t smallest = *std::min_element(kCosts.begin(), kCosts.end());
    // Shift where the cost sequence stands by one read before each calibration, so a
    // calibration that looked only at its first pair would miss the smallest cost in at
    // least four of the five.
    for (int shift = 0; shift < 5; ++shift) {
        uint64_t v[2];
        ASSERT_EQ(kp_thread_sample(t_, v, 2), KP_OK) << kp_error_last_message();
        uint64_t off[2] = {~0ull, ~0ull};
        ASSERT_EQ(kp_thread_calibrate(t_, off, 2, 5), KP_OK) << kp_error_last_message();
        EXPECT_EQ(off[0], 0u) << "cycles, shift " << shift;
        // The mean is 520, the maximum 900, the sum over 5 pairs 2600.
        EXPECT_EQ(off[1], smallest) << "instructions, shift " << shift;
    }
}

TEST_F(CalibrateSim, RoundsZeroMeansOneHundredPairs) {
    uint64_t off[2];
    const uint64_t before = calls();
    ASSERT_EQ(kp_thread_calibrate(t_, off, 2, 0), KP_OK) << kp_error_last_message();
    EXPECT_EQ(calls() - before, 200u) << "rounds 0: 100 pairs of kpc_get_thread_counters";
    EXPECT_EQ(off[1], 200u);
    const uint64_t mid = calls();
    ASSERT_EQ(kp_thread_calibrate(t_, off, 2, 7), KP_OK) << kp_error_last_message();
    EXPECT_EQ(calls() - mid, 14u) << "rounds 7: 7 pairs";
}

TEST_F(CalibrateSim, OneRoundIsThatPairsCost) {
    // With one pair there is nothing to take the minimum of: the offset is the cost of the
    // one read that opens the region, which the next empty region shows is the cost after.
    uint64_t off[2], a[2], b[2];
    ASSERT_EQ(kp_thread_calibrate(t_, off, 2, 1), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_thread_sample(t_, a, 2), KP_OK);
    ASSERT_EQ(kp_thread_sample(t_, b, 2), KP_OK);
    // Calibration's pair opened with cost i; its closing read took cost i+1; this region
    // opened with cost i+2.
    const size_t n = kCosts.size();
    size_t i = std::find(kCosts.begin(), kCosts.end(), b[1] - a[1]) - kCosts.begin();
    ASSERT_LT(i, n) << "a region cost " << b[1] - a[1] << ", not a listed cost";
    EXPECT_EQ(off[1], kCosts[(i + n - 2) % n]);
}

}  // namespace
