// Native Linux event names: raw r<hex> codes always, libpfm4 names when built with it.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <string>

#include "common/workload.hpp"

namespace {

class NativeNames : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message(); }
    void TearDown() override { kp_sampler_free(s); }
    kp_sampler_t *s = nullptr;
};

}  // namespace

TEST_F(NativeNames, LibpfmSoftwareEventCountsLikeTheGenericOne) {
#if !KPC_TEST_HAVE_LIBPFM
    const kp_event_t *e = nullptr;
    EXPECT_EQ(kp_sampler_event_find(&e, s, "perf::PERF_COUNT_SW_PAGE_FAULTS"), KP_EUNKNOWN_EVENT);
    GTEST_SKIP() << "libkpc was built without libpfm4 (install libpfm4-dev); checked that the "
                    "name is refused instead";
#else
    const kp_event_t *e = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&e, s, "perf::PERF_COUNT_SW_PAGE_FAULTS"), KP_OK)
        << kp_error_last_message();
    EXPECT_EQ(kp_event_kind(e), KP_EVENT_SOFTWARE);
    EXPECT_EQ(kp_event_is_generic(e), 0);
    EXPECT_EQ(kp_event_selector(e), 2u);  // PERF_COUNT_SW_PAGE_FAULTS
    EXPECT_EQ(kp_event_unit(e), KP_EVENT_UNIT_COUNT);
    // The clocks keep their unit under their perf names: the unit follows the encoding.
    for (const char *clock : {"perf::PERF_COUNT_SW_TASK_CLOCK", "perf::PERF_COUNT_SW_CPU_CLOCK"}) {
        const kp_event_t *c = nullptr;
        ASSERT_EQ(kp_sampler_event_find(&c, s, clock), KP_OK) << clock << ": " << kp_error_last_message();
        EXPECT_EQ(kp_event_unit(c), KP_EVENT_UNIT_NANOSECONDS) << clock;
    }
    // One counter under two names is refused in one handle (duplicate_names_test.cpp), so
    // each name gets its own handle; the reads are back to back and fault nothing.
    const char *native[] = {"perf::PERF_COUNT_SW_PAGE_FAULTS"};
    const char *generic[] = {"page-faults"};
    kp_thread_t *t = nullptr, *g = nullptr;
    ASSERT_EQ(kp_thread_new(&t, s, native, 1), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_thread_new(&g, s, generic, 1), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    ASSERT_EQ(kp_thread_start(g), KP_OK);
    uint64_t a[2], b[2];
    ASSERT_EQ(kp_thread_sample(t, &a[0], 1), KP_OK);
    ASSERT_EQ(kp_thread_sample(g, &a[1], 1), KP_OK);
    const size_t pages = 300;
    ASSERT_TRUE(kpc_test::touch_fresh_pages(pages));
    ASSERT_EQ(kp_thread_sample(t, &b[0], 1), KP_OK);
    ASSERT_EQ(kp_thread_sample(g, &b[1], 1), KP_OK);
    EXPECT_GE(b[0] - a[0], pages);
    EXPECT_EQ(b[0] - a[0], b[1] - a[1]);  // the same kernel event
    kp_thread_free(g);
    kp_thread_free(t);
#endif
}

TEST_F(NativeNames, HardwareNativeEventWithoutPmuIsUnavailableNotZero) {
    // A raw code is accepted by name; opening it needs the PMU.
    const kp_event_t *e = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&e, s, "r00c0"), KP_OK);
    const char *names[] = {"r00c0"};
    kp_thread_t *t = nullptr;
    int rc = kp_thread_new(&t, s, names, 1);
    if (kp_sampler_access(s) == KP_OK) {
        kp_thread_free(t);
        GTEST_SKIP() << "this machine has a PMU: r00c0 may be countable";
    }
    EXPECT_NE(rc, KP_OK);
    EXPECT_EQ(t, nullptr);
    if (kp_sampler_access(s) == KP_EUNSUPPORTED) {
        EXPECT_EQ(rc, KP_EUNAVAILABLE);
    }
}
