// Hardware events: real assertions where the PMU exists, a printed skip where it does not.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstring>
#include <string>

#include "common/pmu_probe.h"

namespace {

// "" when the kernel (not libkpc) counts hardware instructions for this thread, else its
// reason; `err` gets the errno. A libkpc failure where this succeeds is a failure, not a skip.
std::string kernel_cannot_count_instructions(int *err = nullptr) {
    const int e = kpc_test_probe_instructions();
    if (err) *err = e;
    if (e == 0) return "";
    return std::string("perf_event_open(PERF_COUNT_HW_INSTRUCTIONS): ") + std::strerror(e);
}

}  // namespace

TEST(Hardware, InstructionsAndCyclesGrowWithWork) {
    std::string why = kernel_cannot_count_instructions();
    if (!why.empty()) GTEST_SKIP() << "no hardware counters: " << why;
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK);
    ASSERT_EQ(kp_sampler_access(s), KP_OK) << "the kernel counts instructions, libkpc says: "
                                           << kp_error_last_message();
    const char *names[] = {"cycles", "instructions"};
    kp_thread_t *t = nullptr;
    ASSERT_EQ(kp_thread_new(&t, s, names, 2), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    uint64_t a[2], b[2];
    ASSERT_EQ(kp_thread_sample(t, a, 2), KP_OK);
    volatile uint64_t x = 0;
    for (int i = 0; i < 10000000; ++i) x = x + i;
    ASSERT_EQ(kp_thread_sample(t, b, 2), KP_OK);
    EXPECT_GT(b[1] - a[1], 10000000u);  // at least one instruction per iteration
    EXPECT_GT(b[0] - a[0], 0u);
    kp_thread_free(t);
    kp_sampler_free(s);
}

TEST(Hardware, NoPmuGivesTheDocumentedMessage) {
    // ENOENT: the kernel has no such hardware event, i.e. no PMU. Other refusals (EACCES
    // under a strict perf_event_paranoid) are not "no PMU".
    int err = 0;
    std::string why = kernel_cannot_count_instructions(&err);
    if (err != ENOENT)
        GTEST_SKIP() << "the no-PMU message cannot be observed: "
                     << (why.empty() ? std::string("this machine counts instructions") : why);
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK);
    EXPECT_EQ(kp_sampler_access(s), KP_EUNSUPPORTED) << kp_error_last_message();
    const kp_event_t *e = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&e, s, "instructions"), KP_OK);
    EXPECT_EQ(kp_event_is_available(e), 0);
    EXPECT_NE(std::string(kp_event_unavailable_reason(e)).find("hardware events are not supported on this machine"),
              std::string::npos)
        << kp_event_unavailable_reason(e);
    kp_sampler_free(s);
}
