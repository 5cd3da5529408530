// Kernel and framework refusals mapped to kp_status codes with the cause and the fix.
#include <cerrno>

#include "kperf_fixture.hpp"

namespace kperf_test {
namespace {

using Errors = KperfTest;

TEST_F(Errors, NotRootOpensButCannotCount) {
    kpsim_set_root(0);
    Sampler s = must_sampler();
    ASSERT_TRUE(s) << "the database stays readable without root";
    EXPECT_GT(kp_sampler_event_count(s.get()), 40u);
    EXPECT_EQ(kernel_state().force_all_ctrs, 0);
    EXPECT_EQ(kp_sampler_access(s.get()), KP_EPERM);
    EXPECT_NE(last_message().find("sudo"), std::string::npos) << last_message();
    EXPECT_NE(last_message().find("root"), std::string::npos) << last_message();
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"cycles"}), KP_EPERM);
    EXPECT_NE(last_message().find("sudo"), std::string::npos) << last_message();

    // Becoming root later (e.g. the blessed pid was set) lets the same sampler count.
    kpsim_set_root(1);
    EXPECT_EQ(kp_sampler_access(s.get()), KP_OK) << last_message();
    EXPECT_EQ(kernel_state().force_all_ctrs, 1);
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK);
}

TEST_F(Errors, CountersHeldByAnotherProcessIsBusy) {
    kpsim_set_force_held_elsewhere(1);
    Sampler s = must_sampler();
    ASSERT_TRUE(s);
    EXPECT_EQ(kp_sampler_access(s.get()), KP_EBUSY);
    EXPECT_NE(last_message().find("another process"), std::string::npos) << last_message();
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"branches"}), KP_EBUSY);
    kpsim_set_force_held_elsewhere(0);
    EXPECT_EQ(kp_sampler_access(s.get()), KP_OK) << last_message();
}

TEST_F(Errors, ForeignPmuOwnerIsBusyWithLikelyCauses) {
    kpsim_set_pmu_busy(1);
    Sampler s = must_sampler();
    ASSERT_TRUE(s);
    EXPECT_EQ(kp_sampler_access(s.get()), KP_EBUSY);
    std::string msg = last_message();
    EXPECT_NE(msg.find("Instruments"), std::string::npos) << msg;
    EXPECT_NE(msg.find("powermetrics"), std::string::npos) << msg;
    kpsim_set_pmu_busy(0);
}

TEST_F(Errors, PmuTakenWhileCountingIsBusyOnRead) {
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles"}), KP_OK);
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK);
    ASSERT_EQ(kpsim_fail("kpc_get_thread_counters", 1, EBUSY), 0);
    uint64_t v = 0;
    EXPECT_EQ(kp_thread_sample(t.get(), &v, 1), KP_EBUSY);
    EXPECT_NE(last_message().find("Instruments"), std::string::npos) << last_message();
    EXPECT_EQ(kp_error_last_os_code(), EBUSY);
    EXPECT_EQ(kp_thread_sample(t.get(), &v, 1), KP_OK) << "one failed read breaks nothing";
}

TEST_F(Errors, SelectorNotOnAllowListIsUnavailableNamingTheEvent) {
    Sampler s = must_sampler();
    const kp_event_t *e = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&e, s.get(), "INST_BRANCH"), KP_OK);
    kpsim_deny_selector(static_cast<uint16_t>(kp_event_selector(e)));
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"cycles", "branches"}), KP_EUNAVAILABLE);
    std::string msg = last_message();
    EXPECT_NE(msg.find("branches"), std::string::npos) << msg;
    EXPECT_NE(msg.find("INST_BRANCH"), std::string::npos) << msg;
    EXPECT_EQ(kp_error_last_os_code(), EPERM);
    // Other events still work.
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles", "l1d-load-misses"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
}

TEST_F(Errors, KpepErrorCodesAreFrameworkErrorsWithTheirName) {
    ASSERT_EQ(kpsim_data_fail("kpep_db_create", 1, 7), 0);
    Sampler s;
    EXPECT_EQ(new_sampler(&s), KP_EFRAMEWORK);
    std::string msg = last_message();
    EXPECT_NE(msg.find("kpep error 7"), std::string::npos) << msg;
    EXPECT_NE(msg.find("DB_NOT_FOUND"), std::string::npos) << msg;
    EXPECT_EQ(kp_error_last_os_code(), 7);
    EXPECT_EQ(kernel_state().force_all_ctrs, 0);
}

TEST_F(Errors, KernelErrnoIsReportedWithItsText) {
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles"}), KP_OK);
    ASSERT_EQ(kpsim_fail("kpc_set_counting", 1, EIO), 0);
    EXPECT_EQ(kp_thread_start(t.get()), KP_EKERNEL);
    EXPECT_NE(last_message().find("kpc_set_counting"), std::string::npos) << last_message();
    EXPECT_NE(last_message().find("errno 5"), std::string::npos) << last_message();
    EXPECT_EQ(kp_thread_is_running(t.get()), 0);
    EXPECT_EQ(kernel_state().counting, 0u);
    EXPECT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
}

}  // namespace
}  // namespace kperf_test
