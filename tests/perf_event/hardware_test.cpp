// Hardware events: real assertions where the PMU exists, a printed skip where it does not.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <string>

namespace {

// Returns why hardware counting is impossible here, or "" when it works.
std::string hardware_unavailable(kp_sampler_t *s) {
    int rc = kp_sampler_access(s);
    if (rc == KP_OK) return "";
    return std::string(kp_strerror(rc)) + ": " + kp_error_last_message();
}

}  // namespace

TEST(Hardware, InstructionsAndCyclesGrowWithWork) {
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK);
    std::string why = hardware_unavailable(s);
    if (!why.empty()) {
        kp_sampler_free(s);
        GTEST_SKIP() << "no hardware counters: " << why;
    }
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
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK);
    if (kp_sampler_access(s) != KP_EUNSUPPORTED) {
        kp_sampler_free(s);
        GTEST_SKIP() << "this machine has a PMU; the no-PMU message cannot be observed";
    }
    const kp_event_t *e = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&e, s, "instructions"), KP_OK);
    EXPECT_EQ(kp_event_is_available(e), 0);
    EXPECT_NE(std::string(kp_event_unavailable_reason(e)).find("hardware events are not supported on this machine"),
              std::string::npos)
        << kp_event_unavailable_reason(e);
    kp_sampler_free(s);
}
