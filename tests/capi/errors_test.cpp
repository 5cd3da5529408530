// kpc/errors.h: status strings and the thread-local last error.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <set>
#include <string>
#include <thread>

TEST(Errors, EveryStatusHasItsOwnDescription) {
    std::set<std::string> seen;
    for (int code = KP_OK; code >= KP_EEXEC; --code) {
        std::string s = kp_strerror(code);
        EXPECT_NE(s, "unknown status") << code;
        EXPECT_TRUE(seen.insert(s).second) << "duplicate text for " << code;
    }
    EXPECT_STREQ(kp_strerror(1), "unknown status");
    EXPECT_STREQ(kp_strerror(-1000), "unknown status");
}

TEST(Errors, CodesKeepTheirPublishedValues) {
    // These values are ABI: bindings and stored logs depend on them.
    EXPECT_EQ(KP_EINVAL, -2);
    EXPECT_EQ(KP_EPERM, -5);
    EXPECT_EQ(KP_EWRONG_THREAD, -11);
    EXPECT_EQ(KP_EBUFSIZE, -16);
    EXPECT_EQ(KP_EPARTIAL, -17);
    EXPECT_EQ(KP_EEXEC, -18);
}

TEST(Errors, LastErrorIsRecordedAndCleared) {
    kp_error_clear();
    EXPECT_EQ(kp_error_last_status(), KP_OK);
    EXPECT_STREQ(kp_error_last_message(), "");
    EXPECT_EQ(kp_sampler_new(nullptr, nullptr), KP_EINVAL);
    EXPECT_EQ(kp_error_last_status(), KP_EINVAL);
    EXPECT_NE(std::string(kp_error_last_message()).find("out is NULL"), std::string::npos);
    kp_error_clear();
    EXPECT_EQ(kp_error_last_status(), KP_OK);
    EXPECT_STREQ(kp_error_last_message(), "");
}

TEST(Errors, LastErrorIsPerThread) {
    kp_error_clear();
    std::thread([] { EXPECT_EQ(kp_sampler_new(nullptr, nullptr), KP_EINVAL); }).join();
    // The failure happened on another OS thread: this one is untouched.
    EXPECT_EQ(kp_error_last_status(), KP_OK);
}

TEST(Errors, OsCodeCarriesErrno) {
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK);
    const char *hw[] = {"cycles"};
    kp_thread_t *t = nullptr;
    int rc = kp_thread_new(&t, s, hw, 1);
    if (rc == KP_OK) {
        kp_thread_free(t);
        kp_sampler_free(s);
        GTEST_SKIP() << "this machine has a hardware PMU; the no-PMU errno path is not reachable";
    }
    EXPECT_EQ(rc, KP_EUNAVAILABLE);
    EXPECT_NE(kp_error_last_os_code(), 0);
    EXPECT_NE(std::string(kp_error_last_message()).find("errno"), std::string::npos);
    kp_sampler_free(s);
}
