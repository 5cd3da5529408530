// perf's :u/:k modifiers on the kperf backend (issue 17, 4.5): a configurable counter
// counts user mode (kpep flag 1), a fixed counter every mode; what neither can do is
// refused with why, and "cycles:u"/"instructions:u" move to a configurable event.
#include <cstdlib>
#include <string>

#include "kperf_fixture.hpp"

namespace kperf_test {
namespace {

using Modifiers = KperfTest;

constexpr uint64_t kEl0 = 0x30000;  // EL0A32EN | EL0A64EN: user space only

const kp_event_t *find(kp_sampler_t *s, const char *name) {
    const kp_event_t *e = nullptr;
    EXPECT_EQ(kp_sampler_event_find(&e, s, name), KP_OK) << name << ": " << last_message();
    return e;
}

// kp_sampler_event_find's status and message for a name the backend must refuse.
std::string refusal(kp_sampler_t *s, const char *name) {
    const kp_event_t *e = nullptr;
    int rc = kp_sampler_event_find(&e, s, name);
    EXPECT_EQ(rc, KP_EUNSUPPORTED) << name;
    return rc == KP_OK ? "" : last_message();
}

TEST_F(Modifiers, GenericFixedEventsMoveToAConfigurableCounterUnderU) {
    Sampler s = must_sampler();
    const kp_event_t *ins = find(s.get(), "instructions:u");
    const kp_event_t *cyc = find(s.get(), "cycles:u");
    ASSERT_TRUE(ins && cyc);
    EXPECT_STREQ(kp_event_native_name(ins), "INST_ALL");
    EXPECT_EQ(kp_event_kind(ins), KP_EVENT_CONFIGURABLE);
    EXPECT_EQ(kp_event_counts_kernel(ins), 0);
    EXPECT_STREQ(kp_event_native_name(cyc), "CORE_ACTIVE_CYCLE");
    EXPECT_EQ(kp_event_counts_kernel(cyc), 0);
    // The plain names stay on the fixed counters, which count the kernel too.
    EXPECT_EQ(kp_event_kind(find(s.get(), "instructions")), KP_EVENT_FIXED);
    EXPECT_EQ(kp_event_counts_kernel(find(s.get(), "instructions")), 1);

    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"instructions", "instructions:u", "cycles:u"}), KP_OK)
        << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    // M1: INST_ALL (140) only on counter #7, CORE_ACTIVE_CYCLE (2) on the lowest, #2.
    kpsim_kernel_state st = kernel_state();
    EXPECT_EQ(st.config[7 - 2], 140u | kEl0);
    EXPECT_EQ(st.config[0], 2u | kEl0);
    EXPECT_EQ(st.config_words, 2u);
}

TEST_F(Modifiers, UserModeLeavesTheKernelsReadCostOut) {
    // Threads accrue nothing from CPU time; each read costs the kernel 1000 instructions,
    // which the fixed counter counts and a user-mode counter cannot.
    setenv("KPSIM_CPU_TIME_COUNTS", "0", 1);
    setenv("KPSIM_READ_KERNEL_INSTRUCTIONS", "1000", 1);
    kpsim_reset();
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"instructions", "instructions:u"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    uint64_t a[2], b[2];
    ASSERT_EQ(kp_thread_sample(t.get(), a, 2), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_sample(t.get(), b, 2), KP_OK) << last_message();
    EXPECT_EQ(b[0] - a[0], 1000u);
    EXPECT_EQ(b[1] - a[1], 0u);
    t.reset();
    s.reset();
    unsetenv("KPSIM_CPU_TIME_COUNTS");
    unsetenv("KPSIM_READ_KERNEL_INSTRUCTIONS");
    kpsim_reset();
}

class ModifiersM4 : public KperfTest {
protected:
    const char *chip() const override { return "as4"; }
};

TEST_F(ModifiersM4, InstructionsUseTheChipsOwnSelector) {
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"instructions:u"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    EXPECT_EQ(kernel_state().config[0], 8u | kEl0);  // M4's INST_ALL, any of #2-#7
}

TEST_F(Modifiers, ConfigurableEventsTakeUAndAreTheSameCounter) {
    Sampler s = must_sampler();
    const kp_event_t *b = find(s.get(), "branches:u");
    ASSERT_TRUE(b);
    EXPECT_EQ(kp_event_counts_kernel(b), 0);
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"branches", "branches:u"}), KP_EINVAL)
        << "both count user mode on one counter";
    ASSERT_EQ(new_thread(&t, s.get(), {"branches:u"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    EXPECT_EQ(kernel_state().config[5 - 2], 141u | kEl0);  // INST_BRANCH, lowest of #5-#7
}

TEST_F(Modifiers, FixedEventsTakeUKWhichTheyCountAnyway) {
    Sampler s = must_sampler();
    const kp_event_t *c = find(s.get(), "cycles:uk");
    const kp_event_t *i = find(s.get(), "FIXED_INSTRUCTIONS:ku");
    ASSERT_TRUE(c && i);
    EXPECT_EQ(kp_event_kind(c), KP_EVENT_FIXED);
    EXPECT_EQ(kp_event_counts_kernel(c), 1);
    EXPECT_EQ(kp_event_counts_kernel(i), 1);
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles:uk", "FIXED_INSTRUCTIONS:ku"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    burn(2);
    uint64_t v[2] = {};
    ASSERT_EQ(kp_thread_sample(t.get(), v, 2), KP_OK) << last_message();
    EXPECT_GT(v[0], 0u);
    EXPECT_GT(v[1], 0u);
    EXPECT_EQ(kernel_state().config_words, 0u);  // fixed counters only: no configuration
}

TEST_F(Modifiers, WhatNoCounterCanDoIsRefusedWithWhy) {
    Sampler s = must_sampler();
    std::string m = refusal(s.get(), "FIXED_INSTRUCTIONS:u");
    EXPECT_NE(m.find("fixed counter"), std::string::npos) << m;
    EXPECT_NE(m.find("INST_ALL:u"), std::string::npos) << m;  // its plist fallback
    m = refusal(s.get(), "FIXED_CYCLES:u");
    EXPECT_NE(m.find("cannot leave the kernel out"), std::string::npos) << m;
    m = refusal(s.get(), "branches:k");
    EXPECT_NE(m.find("kernel mode alone"), std::string::npos) << m;
    EXPECT_NE(m.find("secure CPC"), std::string::npos) << m;
    m = refusal(s.get(), "cycles:k");
    EXPECT_NE(m.find("fixed counter counts user and kernel mode"), std::string::npos) << m;
    m = refusal(s.get(), "INST_BRANCH:uk");
    EXPECT_NE(m.find("secure CPC"), std::string::npos) << m;
}

}  // namespace
}  // namespace kperf_test
