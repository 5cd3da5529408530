// A per-thread handle never hands out partial counts as KP_OK (issue 17 4.4): with 12
// events on the emulated PMU's 7 counters (two handles of 6), the kernel multiplexes and
// every kp_thread_sample of a handle that lost its counters returns KP_EPARTIAL, with the
// values written. A handle that fits alone stays KP_OK and exact.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "exact_loop.hpp"

namespace {

constexpr uint64_t kIterations = 2000000;  // 4 M instructions: several multiplexing turns

// Distinct counters to libkpc; the arm64 kernel keeps a raw config's low 16 bits, so each
// r...08 is INST_RETIRED and each r...11 CPU_CYCLES. Six each: one handle fits the 6 event
// counters plus the cycle counter, two do not.
const char *const kInstructions[] = {"instructions", "r8", "r10008", "r20008", "r30008", "r40008"};
const char *const kCycles[] = {"cycles", "r11", "r10011", "r20011", "r30011", "r40011"};

struct Sampler {
    kp_sampler_t *s = nullptr;
    ~Sampler() { kp_sampler_free(s); }
};

kp_thread_t *started(kp_sampler_t *s, const char *const *names) {
    kp_thread_t *t = nullptr;
    EXPECT_EQ(kp_thread_new(&t, s, names, 6), KP_OK) << kp_error_last_message();
    if (t) EXPECT_EQ(kp_thread_start(t), KP_OK) << kp_error_last_message();
    return t;
}

TEST(ThreadPartial, TwelveEventsOnSevenCountersAreNeverKpOk) {
    KPC_PMU_REQUIRE_GUEST();
    Sampler sm;
    ASSERT_EQ(kp_sampler_new(&sm.s, nullptr), KP_OK) << kp_error_last_message();
    kp_thread_t *t[2] = {started(sm.s, kInstructions), started(sm.s, kCycles)};
    ASSERT_TRUE(t[0] && t[1]);
    uint64_t a[2][6], b[2][6];
    for (auto &v : a) v[0] = ~uint64_t{0};
    int rc_a[2];
    for (int h = 0; h < 2; ++h) rc_a[h] = kp_thread_sample(t[h], a[h], 6);
    kpc_pmu::exact_loop(kIterations);
    int partial = 0;
    for (int h = 0; h < 2; ++h) {
        // The full call first: what it says partial, the plain call after it must too (a
        // handle's totals stay partial for its life).
        uint64_t full[6], en = 0, run = 0;
        uint8_t complete[6];
        ASSERT_EQ(kp_thread_sample_full(t[h], full, complete, 6, &en, &run), KP_OK)
            << kp_error_last_message();
        b[h][0] = ~uint64_t{0};
        const int rc = kp_thread_sample(t[h], b[h], 6);
        const std::string msg = kp_error_last_message();
        std::printf("handle %d: first sample %d, last %d; running %llu of %llu ns; delta %llu (truth %llu)\n",
                    h, rc_a[h], rc, (unsigned long long)run, (unsigned long long)en,
                    (unsigned long long)(b[h][0] - a[h][0]), (unsigned long long)(2 * kIterations));
        ASSERT_TRUE(rc == KP_OK || rc == KP_EPARTIAL) << kp_strerror(rc) << ": " << msg;
        ASSERT_NE(b[h][0], ~uint64_t{0}) << "the values are written either way";
        ASSERT_NE(a[h][0], ~uint64_t{0});
        if (complete[0] == 0) {
            EXPECT_EQ(rc, KP_EPARTIAL) << "kp_thread_sample_full said complete 0, running "
                                       << run << " of " << en << " ns";
        }
        if (rc == KP_EPARTIAL) {
            ++partial;
            EXPECT_NE(msg.find("kp_thread_sample_full"), std::string::npos) << msg;
            EXPECT_NE(msg.find("multiplexed"), std::string::npos) << msg;
        } else {
            EXPECT_EQ(rc_a[h], KP_OK) << "partial once, partial for the handle's life";
            // Whole: the delta is the loop plus a few instructions of the calls.
            EXPECT_GE(b[h][0] - a[h][0], 2 * kIterations);
            EXPECT_LT(b[h][0] - a[h][0], 2 * kIterations + 5000);
        }
    }
    EXPECT_GT(partial, 0) << "12 events on 7 counters, yet every plain sample was KP_OK";
    // Once partial, always partial, even when the other handle is gone.
    kp_thread_free(t[1]);
    uint64_t v[6];
    uint8_t complete[6];
    ASSERT_EQ(kp_thread_sample_full(t[0], v, complete, 6, nullptr, nullptr), KP_OK);
    EXPECT_EQ(kp_thread_sample(t[0], v, 6), complete[0] ? KP_OK : KP_EPARTIAL);
    kp_thread_free(t[0]);
}

TEST(ThreadPartial, SixEventsOnSevenCountersAreWholeAndExact) {
    KPC_PMU_REQUIRE_GUEST();
    Sampler sm;
    ASSERT_EQ(kp_sampler_new(&sm.s, nullptr), KP_OK) << kp_error_last_message();
    kp_thread_t *t = started(sm.s, kInstructions);
    ASSERT_TRUE(t);
    uint64_t d[2][6];
    const uint64_t sizes[2] = {10000, 1000000};
    for (int k = 0; k < 2; ++k) {
        uint64_t a[6], b[6];
        ASSERT_EQ(kp_thread_sample(t, a, 6), KP_OK) << kp_error_last_message();
        kpc_pmu::exact_loop(sizes[k]);
        ASSERT_EQ(kp_thread_sample(t, b, 6), KP_OK) << kp_error_last_message();
        for (int i = 0; i < 6; ++i) d[k][i] = b[i] - a[i];
    }
    for (int i = 0; i < 6; ++i) {
        // Every alias counts INST_RETIRED whole: the same count, and exactly 2 per iteration.
        EXPECT_EQ(d[0][i], d[0][0]) << kInstructions[i];
        EXPECT_EQ(d[1][i] - d[0][i], 2 * (sizes[1] - sizes[0])) << kInstructions[i];
    }
    kp_thread_free(t);
}

}  // namespace
