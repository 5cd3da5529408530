// Issue 18: a sample read from user space allocates nothing, as tests/alloc proves for
// read() (which is all that x86 runs here). Hardware events in the guest, with
// perf_user_access=1 as the guest boots; the handles must say they read in user space.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstdint>

#include "alloc_counter.hpp"
#include "exact_loop.hpp"

namespace {

constexpr int kSamples = 2000;

TEST(UserReadAlloc, UserSpaceSamplesAllocateNothing) {
    KPC_PMU_REQUIRE_GUEST();
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    // The counter must see libkpc's own allocations, or a 0 below proves nothing.
    kpc_alloc::begin();
    const char *names[] = {"cycles", "instructions", "r8", "r10008", "r20008", "r30008"};
    kp_thread_t *t = nullptr;
    const int rc = kp_thread_new(&t, s, names, 6);
    const kpc_alloc::Stats made = kpc_alloc::end();
    ASSERT_EQ(rc, KP_OK) << kp_error_last_message();
    EXPECT_GT(made.count, 0u) << "kp_thread_new allocates, yet the counter saw nothing";
    kp_thread_free(t);
    for (size_t n : {size_t{1}, size_t{2}, size_t{6}}) {
        ASSERT_EQ(kp_thread_new(&t, s, names, n), KP_OK) << kp_error_last_message();
        ASSERT_EQ(kp_thread_start(t), KP_OK) << kp_error_last_message();
        ASSERT_EQ(kp_thread_user_reads(t), 1) << n << " events: " << kp_thread_user_reads_reason(t);
        uint64_t values[6] = {}, enabled = 0, running = 0;
        uint8_t complete[6] = {};
        int bad = KP_OK;
        kpc_alloc::begin();  // from the very first sample after start
        for (int i = 0; i < kSamples; ++i) {
            if (int r = kp_thread_sample(t, values, n); r != KP_OK) bad = r;
            if (int r = kp_thread_sample_full(t, values, complete, n, &enabled, &running); r != KP_OK)
                bad = r;
        }
        const kpc_alloc::Stats got = kpc_alloc::end();
        EXPECT_EQ(bad, KP_OK) << kp_error_last_message();
        EXPECT_EQ(got.count, 0u) << n << " events: " << kpc_alloc::describe(got);
        kp_thread_free(t);
    }
    kp_sampler_free(s);
}

}  // namespace
