// Per-thread isolation: several threads loop at once, each with its own kp_thread_t, and
// each reads exactly its own loop (2 per iteration plus the sampling offset), none of
// another thread's work.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "exact_loop.hpp"

namespace {

// Instructions between two samples around a loop of n, on the calling thread; 0 on error.
uint64_t loop_delta(kp_sampler_t *s, uint64_t n, std::atomic<int> *go, int *rc_out) {
    const char *names[] = {"instructions"};
    kp_thread_t *t = nullptr;
    *rc_out = kp_thread_new(&t, s, names, 1);
    if (*rc_out != KP_OK) return 0;
    *rc_out = kp_thread_start(t);
    uint64_t a = 0, b = 0;
    if (*rc_out == KP_OK) {
        kp_thread_sample(t, &a, 1);  // warm
        kpc_pmu::exact_loop(10);
        kp_thread_sample(t, &a, 1);
        while (go != nullptr && go->load() == 0) {
        }
        kp_thread_sample(t, &a, 1);
        kpc_pmu::exact_loop(n);
        *rc_out = kp_thread_sample(t, &b, 1);
    }
    kp_thread_free(t);
    return b - a;
}

TEST(ThreadIsolation, EachThreadCountsOnlyItsOwnLoop) {
    KPC_PMU_REQUIRE_GUEST();
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    int rc = 0;
    // The sampling offset, on this thread alone.
    const uint64_t alone = loop_delta(s, 1000, nullptr, &rc);
    ASSERT_EQ(rc, KP_OK) << kp_error_last_message();
    const int64_t offset = static_cast<int64_t>(alone) - 2000;

    constexpr int kThreads = 4;
    std::atomic<int> go{0};
    std::vector<uint64_t> got(kThreads);
    std::vector<int> rcs(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&, i] { got[i] = loop_delta(s, 100000u * (i + 1), &go, &rcs[i]); });
    go = 1;
    for (auto &t : threads) t.join();
    for (int i = 0; i < kThreads; ++i) {
        EXPECT_EQ(rcs[i], KP_OK) << "thread " << i;
        EXPECT_EQ(static_cast<int64_t>(got[i]), 200000 * (i + 1) + offset) << "thread " << i;
    }
    kp_sampler_free(s);
}

}  // namespace
