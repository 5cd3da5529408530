// kpc/version.h: header and library agree.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <string>

TEST(Version, LibraryMatchesHeaders) {
    EXPECT_EQ(kp_version_number(), KP_VERSION_NUMBER);
    EXPECT_STREQ(kp_version_string(), KP_VERSION_STRING);
    std::string expect = std::to_string(KP_VERSION_MAJOR) + "." + std::to_string(KP_VERSION_MINOR) +
                         "." + std::to_string(KP_VERSION_PATCH);
    EXPECT_EQ(expect, kp_version_string());
}

TEST(Version, CheckMacroCompares) {
    EXPECT_TRUE(KP_VERSION_CHECK(0, 0, 0));
    EXPECT_TRUE(KP_VERSION_CHECK(KP_VERSION_MAJOR, KP_VERSION_MINOR, KP_VERSION_PATCH));
    EXPECT_FALSE(KP_VERSION_CHECK(KP_VERSION_MAJOR + 1, 0, 0));
}
