// kp_thread_calibrate on exact counters (issue 17 4.3): its offset must be exactly what an
// empty region between two public kp_thread_sample calls costs, and subtracting it from a
// region around a loop of known length must leave the loop.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstdint>
#include <cstdio>

#include "exact_loop.hpp"
#include "common/thread_handles.hpp"

namespace {

// A user's empty region: two public calls with nothing between them but the second call's
// arguments. The first call's status is checked after the second, by the sentinel a
// failing call leaves (a status check between the calls would be counted too).
__attribute__((noinline)) int empty_region(kp_thread_t *t, uint64_t *a, uint64_t *b, size_t n) {
    a[0] = ~uint64_t{0};
    kp_thread_sample(t, a, n);
    const int rc = kp_thread_sample(t, b, n);
    if (rc != KP_OK) return rc;
    return a[0] != ~uint64_t{0} ? KP_OK : kp_error_last_status();
}

void open_started(ThreadHandles *h) {
    ASSERT_EQ(kp_sampler_new(&h->s, nullptr), KP_OK) << kp_error_last_message();
    const char *names[] = {"instructions", "cycles"};
    ASSERT_EQ(kp_thread_new(&h->t, h->s, names, 2), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_thread_start(h->t), KP_OK) << kp_error_last_message();
}

TEST(Calibrate, OffsetIsExactlyAnEmptyRegionsCost) {
    KPC_PMU_REQUIRE_GUEST();
    ThreadHandles h;
    open_started(&h);
    uint64_t off[2] = {0, 0};
    ASSERT_EQ(kp_thread_calibrate(h.t, off, 2, 0), KP_OK) << kp_error_last_message();
    uint64_t a[2], b[2];
    for (int i = 0; i < 20; ++i) {
        ASSERT_EQ(empty_region(h.t, a, b, 2), KP_OK) << kp_error_last_message();
        if (i == 0)
            std::printf("offset %llu instructions, %llu cycles; empty region %llu, %llu\n",
                        (unsigned long long)off[0], (unsigned long long)off[1],
                        (unsigned long long)(b[0] - a[0]), (unsigned long long)(b[1] - a[1]));
        // User-mode counts under -icount are exact: every empty region costs the same.
        EXPECT_EQ(b[0] - a[0], off[0]) << "region " << i;
        EXPECT_EQ(b[1] - a[1], off[1]) << "region " << i;
    }
    EXPECT_EQ(off[1], off[0] << kpc_pmu::icount_shift()) << "cycles are 2^shift per instruction";
    // The user-space half of two reads: some tens of instructions, never thousands (the
    // kernel's part is not counted: hardware events count user mode).
    EXPECT_GT(off[0], 10u);
    EXPECT_LT(off[0], 2000u);
}

TEST(Calibrate, SubtractingTheOffsetLeavesTheLoop) {
    KPC_PMU_REQUIRE_GUEST();
    ThreadHandles h;
    open_started(&h);
    uint64_t off[2];
    ASSERT_EQ(kp_thread_calibrate(h.t, off, 2, 10), KP_OK) << kp_error_last_message();
    uint64_t rest[2] = {0, 0};
    // Both fit one 16-bit move, so passing either to the loop costs the same instruction.
    const uint64_t sizes[2] = {1000, 60000};
    for (int k = 0; k < 2; ++k) {
        // Statuses checked after the region, so that only the loop call is in it.
        uint64_t a[2], b[2];
        const int ra = kp_thread_sample(h.t, a, 2);
        kpc_pmu::exact_loop(sizes[k]);
        const int rb = kp_thread_sample(h.t, b, 2);
        ASSERT_EQ(ra, KP_OK);
        ASSERT_EQ(rb, KP_OK) << kp_error_last_message();
        ASSERT_GE(b[0] - a[0], off[0] + 2 * sizes[k]);
        rest[k] = b[0] - a[0] - off[0] - 2 * sizes[k];
        std::printf("loop of %llu: %llu instructions, %llu beyond offset and loop\n",
                    (unsigned long long)sizes[k], (unsigned long long)(b[0] - a[0]),
                    (unsigned long long)rest[k]);
    }
    // What is left is the loop call and keeping the first status: the same few
    // instructions at both sizes.
    // Observed 12 and 13 (the one-instruction difference at the longer loop is not yet
    // explained; an offset that missed the public call's cost would be off by more).
    EXPECT_LE(rest[1] > rest[0] ? rest[1] - rest[0] : rest[0] - rest[1], 1u);
    EXPECT_LT(rest[0], 20u);
}

}  // namespace
