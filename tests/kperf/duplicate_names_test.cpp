// One kpep event under two names (generic and native, or native and alias) in one
// kp_thread_t is KP_EINVAL naming both, found before placement or availability (issue 8,
// section 1, item 3). Before, {cycles, FIXED_CYCLES} reached the placement and came back
// as KP_ECONFLICT over counter 0. Also: absurdly long names are refused at once (item 4).
#include "kperf_fixture.hpp"

namespace kperf_test {
namespace {

using DuplicateNames = KperfTest;

bool names_both(const std::string &msg, const char *a, const char *b) {
    return msg.find(std::string("'") + a + "'") != std::string::npos &&
           msg.find(std::string("'") + b + "'") != std::string::npos &&
           msg.find("same counter") != std::string::npos;
}

TEST_F(DuplicateNames, GenericAndNativeNameOfOneEvent) {
    Sampler s = must_sampler();
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"cycles", "FIXED_CYCLES"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last_message(), "cycles", "FIXED_CYCLES")) << last_message();
    EXPECT_NE(last_message().find("list it once"), std::string::npos) << last_message();
    EXPECT_EQ(new_thread(&t, s.get(), {"INST_BRANCH", "instructions", "branches"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last_message(), "INST_BRANCH", "branches")) << last_message();
    EXPECT_FALSE(t);
    // Nothing was programmed: the fixture checks the kernel is as it was.
}

TEST_F(DuplicateNames, AliasAndNativeNameOfOneEvent) {
    Sampler s = must_sampler();
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"Cycles", "FIXED_CYCLES"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last_message(), "Cycles", "FIXED_CYCLES")) << last_message();
    EXPECT_EQ(new_thread(&t, s.get(), {"instructions", "Instructions"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last_message(), "instructions", "Instructions")) << last_message();
}

TEST_F(DuplicateNames, DuplicateIsFoundBeforeAvailability) {
    Sampler s = must_sampler();
    Thread t;
    // page-faults cannot be counted on this backend; the duplicate is reported first.
    EXPECT_EQ(new_thread(&t, s.get(), {"page-faults", "cycles", "Cycles"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last_message(), "cycles", "Cycles")) << last_message();
}

TEST_F(DuplicateNames, DistinctEventsStillCountTogether) {
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles", "instructions", "INST_BRANCH"}), KP_OK)
        << last_message();
}

TEST_F(DuplicateNames, OneMebibyteNameIsRefusedAtOnce) {
    Sampler s = must_sampler();
    const std::string huge(1 << 20, 'F');
    const kp_event_t *e = nullptr;
    EXPECT_EQ(kp_sampler_event_find(&e, s.get(), huge.c_str()), KP_EINVAL);
    EXPECT_NE(last_message().find("256 bytes"), std::string::npos) << last_message().substr(0, 300);
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {huge.c_str()}), KP_EINVAL);
}

}  // namespace
}  // namespace kperf_test
