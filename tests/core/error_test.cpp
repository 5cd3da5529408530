#include "core/error.hpp"

#include <gtest/gtest.h>

#include <cerrno>

#include "capi/guard.hpp"
#include "kpc/errors.h"

TEST(CoreError, GuardTurnsEveryExceptionIntoAStatus) {
    EXPECT_EQ(kpc::guarded([]() -> int { kpc::fail(KP_EBUSY, "held elsewhere", EBUSY); }), KP_EBUSY);
    EXPECT_STREQ(kp_error_last_message(), "held elsewhere");
    EXPECT_EQ(kp_error_last_os_code(), EBUSY);
    EXPECT_EQ(kpc::guarded([]() -> int { throw std::bad_alloc(); }), KP_ENOMEM);
    EXPECT_EQ(kpc::guarded([]() -> int { throw std::runtime_error("boom"); }), KP_ERROR);
    EXPECT_STREQ(kp_error_last_message(), "boom");
    EXPECT_EQ(kpc::guarded([]() -> int { throw 42; }), KP_ERROR);
    EXPECT_EQ(kpc::guarded([] { return KP_OK; }), KP_OK);
}

TEST(CoreError, ErrnoTextNamesTheCode) {
    std::string t = kpc::errno_text(EACCES);
    EXPECT_NE(t.find("errno 13"), std::string::npos);
    EXPECT_NE(t.find("Permission denied"), std::string::npos);
}
