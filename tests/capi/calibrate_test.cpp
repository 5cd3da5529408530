// kp_thread_calibrate on perf_event with software events, which are real on every Linux
// machine: the measured offset of an empty region, and every error path.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstdint>
#include <thread>

#include "common/thread_handles.hpp"

namespace {

void open(ThreadHandles *h, const char *const *names, size_t n) {
    ASSERT_EQ(kp_sampler_new(&h->s, nullptr), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_thread_new(&h->t, h->s, names, n), KP_OK) << kp_error_last_message();
}

}  // namespace

TEST(Calibrate, EmptyRegionCostsLittleTimeAndNoPageFaults) {
    ThreadHandles h;
    const char *names[] = {"task-clock", "page-faults"};
    open(&h, names, 2);
    ASSERT_EQ(kp_thread_start(h.t), KP_OK) << kp_error_last_message();
    uint64_t off[2] = {~0ull, ~0ull};
    ASSERT_EQ(kp_thread_calibrate(h.t, off, 2, 0), KP_OK) << kp_error_last_message();
    // Two reads back to back: a little CPU time (at least one nanosecond of it is usually
    // measured, but never a millisecond), and no page fault in the smallest pair.
    EXPECT_LT(off[0], 1000000u);
    EXPECT_EQ(off[1], 0u);
    // A region with real work costs more than the empty one.
    uint64_t a[2], b[2];
    ASSERT_EQ(kp_thread_sample(h.t, a, 2), KP_OK);
    volatile uint64_t x = 0;
    for (int i = 0; i < 2000000; ++i) x = x + static_cast<uint64_t>(i);
    ASSERT_EQ(kp_thread_sample(h.t, b, 2), KP_OK);
    EXPECT_GT(b[0] - a[0], off[0]);
}

TEST(Calibrate, RefusesBadArgumentsWithTheReason) {
    ThreadHandles h;
    const char *names[] = {"task-clock", "page-faults"};
    open(&h, names, 2);
    uint64_t off[2];
    EXPECT_EQ(kp_thread_calibrate(nullptr, off, 2, 0), KP_EINVAL);
    EXPECT_EQ(kp_thread_calibrate(h.t, nullptr, 2, 0), KP_EINVAL);
    EXPECT_EQ(kp_thread_calibrate(h.t, off, 2, 0), KP_ESTATE);  // not started
    EXPECT_NE(std::string(kp_error_last_message()).find("kp_thread_start"), std::string::npos);
    ASSERT_EQ(kp_thread_start(h.t), KP_OK);
    EXPECT_EQ(kp_thread_calibrate(h.t, off, 1, 0), KP_EBUFSIZE);
    EXPECT_EQ(kp_thread_calibrate(h.t, off, 2, 2000000), KP_EINVAL);
    int other = KP_OK;
    std::thread([&] { other = kp_thread_calibrate(h.t, off, 2, 1); }).join();
    EXPECT_EQ(other, KP_EWRONG_THREAD);
    EXPECT_EQ(kp_thread_calibrate(h.t, off, 2, 1), KP_OK);
}
