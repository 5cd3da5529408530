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

struct Counted {
    int rc = KP_OK;
    int64_t offset = 0;  // this thread's sampling cost: a loop of 1000 minus its 2000
    int64_t looped = 0;  // the concurrent loop's delta minus its 2n
};

// On the calling thread: its own offset first, then, once `go` is set, a loop of n.
Counted count_loop(kp_sampler_t *s, uint64_t n, const std::atomic<int> &go) {
    Counted c;
    const char *names[] = {"instructions"};
    kp_thread_t *t = nullptr;
    if ((c.rc = kp_thread_new(&t, s, names, 1)) != KP_OK || (c.rc = kp_thread_start(t)) != KP_OK) {
        kp_thread_free(t);
        return c;
    }
    auto delta = [&](uint64_t iterations) {
        uint64_t a = 0, b = 0;
        kp_thread_sample(t, &a, 1);
        kpc_pmu::exact_loop(iterations);
        if (int rc = kp_thread_sample(t, &b, 1); rc != KP_OK) c.rc = rc;
        return static_cast<int64_t>(b - a) - 2 * static_cast<int64_t>(iterations);
    };
    delta(10);  // warm
    c.offset = delta(1000);
    while (go.load() == 0) {
    }
    c.looped = delta(n);
    kp_thread_free(t);
    return c;
}

// Each thread's loop, run while the others run theirs, reads exactly its own 2n plus the
// same offset it pays alone: not one instruction of another thread.
TEST(ThreadIsolation, EachThreadCountsOnlyItsOwnLoop) {
    KPC_PMU_REQUIRE_GUEST();
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    constexpr int kThreads = 4;
    std::atomic<int> go{0};
    std::vector<Counted> got(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&, i] { got[i] = count_loop(s, 100000u * (i + 1), go); });
    go = 1;
    for (auto &t : threads) t.join();
    for (int i = 0; i < kThreads; ++i) {
        std::printf("thread %d: offset %lld, loop of %d: %lld over 2n\n", i, (long long)got[i].offset,
                    100000 * (i + 1), (long long)got[i].looped);
        EXPECT_EQ(got[i].rc, KP_OK) << "thread " << i;
        EXPECT_GT(got[i].offset, 0) << "thread " << i;
        EXPECT_EQ(got[i].looped, got[i].offset) << "thread " << i;
    }
    kp_sampler_free(s);
}

}  // namespace
