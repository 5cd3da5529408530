// KP_BACKEND_AUTO on a Mac, on Linux: the macOS rule switched on with the core's test hook,
// kperf and libSystem simulated (tests/kperf_sim, tests/recount_sim). Each test runs in its
// own process, so the simulators read the KPSIM_ and RCSIM_ variables set here when loaded.
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <stdlib.h>

#include <string>

#include "core/backend.hpp"

namespace {

class AutoOnMac : public ::testing::Test {
protected:
    void SetUp() override {
        kpc::set_apple_platform_for_testing(1);
        unsetenv("KPC_BACKEND");
        setenv("KPC_KPERF_PATH", KPC_TEST_KPERF, 1);
        setenv("KPC_KPERFDATA_PATH", KPC_TEST_KPERFDATA, 1);
        setenv("KPC_LIBSYSTEM_PATH", KPC_TEST_RCSIM, 1);
    }
    void TearDown() override {
        kp_sampler_free(s_);
        kpc::set_apple_platform_for_testing(0);
    }
    void open() { ASSERT_EQ(kp_sampler_new(&s_, nullptr), KP_OK) << kp_error_last_message(); }
    kp_sampler_t *s_ = nullptr;
};

}  // namespace

TEST_F(AutoOnMac, RootGetsKperf) {
    setenv("KPSIM_ROOT", "1", 1);
    open();
    EXPECT_EQ(kp_sampler_backend(s_), KP_BACKEND_KPERF);
    EXPECT_STREQ(kp_sampler_backend_reason(s_), "root: kperf can count every event");
    EXPECT_EQ(kp_sampler_access(s_), KP_OK) << kp_error_last_message();
}

TEST_F(AutoOnMac, NotRootGetsRecountAndIsTold) {
    setenv("KPSIM_ROOT", "0", 1);
    open();
    EXPECT_EQ(kp_sampler_backend(s_), KP_BACKEND_RECOUNT);
    EXPECT_STREQ(kp_sampler_backend_reason(s_),
                 "not root: counting cycles and instructions per thread without root; run with "
                 "sudo for all events");
    EXPECT_EQ(kp_sampler_access(s_), KP_OK) << kp_error_last_message();
    const char *names[] = {"cycles", "instructions"};
    kp_thread_t *t = nullptr;
    ASSERT_EQ(kp_thread_new(&t, s_, names, 2), KP_OK) << kp_error_last_message();
    kp_thread_free(t);
}

TEST_F(AutoOnMac, KperfThatCannotLoadGivesRecountWithTheReason) {
    setenv("KPC_KPERF_PATH", "/nonexistent/kperf", 1);
    open();
    EXPECT_EQ(kp_sampler_backend(s_), KP_BACKEND_RECOUNT);
    std::string why = kp_sampler_backend_reason(s_);
    EXPECT_NE(why.find("kperf cannot count here"), std::string::npos) << why;
    EXPECT_NE(why.find("/nonexistent/kperf"), std::string::npos) << why;
}

TEST_F(AutoOnMac, NamedBackendIsNotOverruled) {
    setenv("KPSIM_ROOT", "0", 1);
    setenv("KPC_BACKEND", "kperf", 1);
    open();
    EXPECT_EQ(kp_sampler_backend(s_), KP_BACKEND_KPERF);
    EXPECT_STREQ(kp_sampler_backend_reason(s_), "named by KPC_BACKEND=kperf");
    EXPECT_EQ(kp_sampler_access(s_), KP_EPERM);
}

TEST(AutoOnLinux, StaysPerfEvent) {
    unsetenv("KPC_BACKEND");
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_sampler_backend(s), KP_BACKEND_PERF_EVENT);
    EXPECT_STREQ(kp_sampler_backend_reason(s), "the platform's own (Linux)");
    kp_sampler_free(s);
}
