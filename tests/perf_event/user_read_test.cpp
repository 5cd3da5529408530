// Issue 18: the parts of user-space counter reads that run without a PMU. The seqlock
// read against a page in memory with a fake counter instruction, sign extension, the
// fallback decisions and their texts, and what the C API says on this machine. The real
// reads are proven in the emulated-PMU guest (tests/pmu/user_read_test.cpp).
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <stdlib.h>

#include <cstring>
#include <string>
#include <vector>

#include "backends/perf_event/user_read.hpp"
#include "backends/perf_event/user_read_choice.hpp"
#include "core/environment.hpp"

namespace {

using kpc::perf::read_page;
using kpc::perf::sign_extend;
using kpc::perf::user_read_refusal;
using kpc::perf::UserReadFacts;

// A page as the kernel fills it for an event on counter `index` - 1.
perf_event_mmap_page page(uint32_t index, int64_t offset, uint16_t width) {
    perf_event_mmap_page p;
    std::memset(&p, 0, sizeof p);
    p.lock = 4;
    p.index = index;
    p.offset = offset;
    p.pmc_width = width;
    p.cap_user_rdpmc = 1;
    p.time_enabled = 1000;
    p.time_running = 1000;
    return p;
}

TEST(UserRead, SignExtendsToTheCounterWidth) {
    EXPECT_EQ(sign_extend(0x7fffffffu, 32), 0x7fffffff);
    EXPECT_EQ(sign_extend(0xffffffffu, 32), -1);
    EXPECT_EQ(sign_extend(0x80000000u, 32), -2147483648LL);
    // Bits above the width are not the counter's.
    EXPECT_EQ(sign_extend(0xabcd00000005ull, 32), 5);
    EXPECT_EQ(sign_extend(0xffffffffffffffffull, 64), -1);
    EXPECT_EQ(sign_extend(0x0000ffffffffffffull, 48), -1);
    EXPECT_EQ(sign_extend(0x00007fffffffffffull, 48), 0x7fffffffffffLL);
    EXPECT_EQ(sign_extend(0xfffffffffffffff0ull, 0), -16) << "width 0 (never published) reads as 64";
}

TEST(UserRead, ValueIsOffsetPlusTheSignExtendedCounterOfIndexMinusOne) {
    perf_event_mmap_page p = page(3, 1000000, 32);
    uint32_t asked = 99;
    uint64_t v = 0;
    // A 32-bit counter that started negative (the kernel sets it so to overflow soon).
    ASSERT_TRUE(read_page(&p, [&](uint32_t c) { asked = c; return uint64_t{0xfffffff0}; }, &v));
    EXPECT_EQ(asked, 2u);
    EXPECT_EQ(v, 1000000u - 16u);
    p.pmc_width = 64;
    ASSERT_TRUE(read_page(&p, [](uint32_t) { return uint64_t{1} << 40; }, &v));
    EXPECT_EQ(v, 1000000u + (uint64_t{1} << 40));
    // arm64's cycle counter: the kernel publishes index 32, i.e. counter 31.
    p.index = 32;
    ASSERT_TRUE(read_page(&p, [&](uint32_t c) { asked = c; return uint64_t{7}; }, &v));
    EXPECT_EQ(asked, 31u);
}

TEST(UserRead, RefusesWhatThePageDoesNotAllow) {
    int reads = 0;
    auto counter = [&](uint32_t) { ++reads; return uint64_t{1}; };
    uint64_t v = 0;
    perf_event_mmap_page p = page(0, 5, 32);  // not on a counter
    EXPECT_FALSE(read_page(&p, counter, &v));
    p = page(1, 5, 32);
    p.cap_user_rdpmc = 0;
    EXPECT_FALSE(read_page(&p, counter, &v));
    EXPECT_EQ(reads, 0) << "the counter instruction must not run when the page says no";
    p = page(1, 5, 32);
    uint64_t times[2];
    EXPECT_FALSE(read_page(&p, counter, &v, times, true)) << "no cap_user_time: no times now";
}

TEST(UserRead, RetriesWhenTheKernelUpdatedThePageDuringTheRead) {
    perf_event_mmap_page p = page(1, 100, 32);
    int reads = 0;
    uint64_t v = 0;
    // The first read is interrupted: the kernel moves the event (new offset, lock bumped).
    ASSERT_TRUE(read_page(&p, [&](uint32_t) {
        if (++reads == 1) {
            p.offset = 200;
            p.lock += 2;
        }
        return uint64_t{10};
    }, &v));
    EXPECT_EQ(reads, 2);
    EXPECT_EQ(v, 210u);
}

TEST(UserRead, TimesComeFromThePageAndItsClockConversion) {
    perf_event_mmap_page p = page(1, 0, 64);
    p.time_enabled = 5000;
    p.time_running = 4000;
    uint64_t v = 0, times[2] = {0, 0};
    ASSERT_TRUE(read_page(&p, [](uint32_t) { return uint64_t{1}; }, &v, times));
    EXPECT_EQ(times[0], 5000u);
    EXPECT_EQ(times[1], 4000u);
    // time_mult 0 makes the clock's contribution time_offset alone: a known delta.
    p.cap_user_time = 1;
    p.time_offset = 250;
    ASSERT_TRUE(read_page(&p, [](uint32_t) { return uint64_t{1}; }, &v, times, true));
    EXPECT_EQ(times[0], 5250u);
    EXPECT_EQ(times[1], 4250u);
}

TEST(UserReadChoice, EmptyWhenNothingSaysNo) { EXPECT_EQ(user_read_refusal(UserReadFacts{}), ""); }

TEST(UserReadChoice, EachReasonNamesTheCauseAndTheFix) {
    UserReadFacts f;
    f.switched_off = "turned off by KPC_USER_READS=0";
    EXPECT_EQ(user_read_refusal(f), "turned off by KPC_USER_READS=0");

    f = UserReadFacts{};
    f.software_event = "task-clock";
    EXPECT_NE(user_read_refusal(f).find("'task-clock' is a software event"), std::string::npos);

    f = UserReadFacts{};
    f.arm64 = true;
    f.user_access_setting = 0;  // arm64 says cap_user_rdpmc=1 even then: the switch decides
    EXPECT_EQ(user_read_refusal(f),
              "kernel.perf_user_access=0: run `sudo sysctl -w kernel.perf_user_access=1`");
    f.user_access_setting = 1;
    EXPECT_EQ(user_read_refusal(f), "");
    f.no_rdpmc_event = "cycles";
    f.user_access_setting = 0;
    f.arm64 = false;
    EXPECT_NE(user_read_refusal(f).find("/sys/bus/event_source/devices/cpu/rdpmc is 0"),
              std::string::npos);
    f.user_access_setting = 1;  // allowed, yet the page says no
    EXPECT_EQ(user_read_refusal(f).rfind("cap_user_rdpmc=0", 0), 0u) << user_read_refusal(f);

    f = UserReadFacts{};
    f.multiplexed = true;
    EXPECT_EQ(user_read_refusal(f).rfind("multiplexed", 0), 0u);
    f = UserReadFacts{};
    f.off_counter = "instructions";
    EXPECT_EQ(user_read_refusal(f).rfind("multiplexed", 0), 0u);

    f = UserReadFacts{};
    f.disagreement = "event 'cycles': 5, then read() 9, then 7";
    EXPECT_NE(user_read_refusal(f).find("disagreed with read()"), std::string::npos);
    EXPECT_NE(user_read_refusal(f).find("then read() 9"), std::string::npos);

    f = UserReadFacts{};
    f.arch = false;
    EXPECT_NE(user_read_refusal(f).find("arm64 and x86-64 only"), std::string::npos);
}

// The start check's bracket: what a wrong counter, width or offset would give is refused.
TEST(UserReadChoice, TheStartCheckRefusesValuesOutOfTheBracket) {
    const std::vector<std::string> names = {"cycles", "instructions"};
    const uint64_t before[] = {1000, 500}, read[] = {1100, 550}, after[] = {1200, 600};
    EXPECT_EQ(kpc::perf::bracket_disagreement(names, before, read, after), "");
    const uint64_t equal[] = {1000, 500};  // nothing counted between: still in order
    EXPECT_EQ(kpc::perf::bracket_disagreement(names, equal, equal, equal), "");
    const uint64_t wrapped[] = {1200, 500 + (uint64_t{1} << 32)};  // a 32-bit width read as 64
    EXPECT_EQ(kpc::perf::bracket_disagreement(names, before, read, wrapped),
              "event 'instructions': 500, then read() 550, then 4294967796");
    // Another counter's values, read both times.
    const uint64_t other_before[] = {1000, 20}, other_after[] = {1200, 25};
    EXPECT_NE(kpc::perf::bracket_disagreement(names, other_before, read, other_after), "");
    const uint64_t later[] = {1000, 600};  // read() below the first user-space read
    EXPECT_EQ(kpc::perf::bracket_disagreement(names, later, read, after).rfind("event 'instructions'", 0), 0u);
}

TEST(UserReadChoice, TheSwitchComesFirst) {
    UserReadFacts f;
    f.switched_off = "turned off by kp_sampler_options_t.user_reads = KP_USER_READS_OFF";
    f.software_event = "task-clock";
    f.no_rdpmc_event = "cycles";
    f.multiplexed = true;
    EXPECT_EQ(user_read_refusal(f), f.switched_off);
}

// This machine through the C API: a software event is always read with read(), and says so.
TEST(UserReadApi, SoftwareEventsAreReadWithReadAndSaySo) {
    unsetenv("KPC_USER_READS");
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    const char *names[] = {"task-clock"};
    kp_thread_t *t = nullptr;
    ASSERT_EQ(kp_thread_new(&t, s, names, 1), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_thread_user_reads(t), 0);
    EXPECT_NE(std::string(kp_thread_user_reads_reason(t)).find("software event"), std::string::npos)
        << kp_thread_user_reads_reason(t);
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    uint64_t v[1] = {0};
    EXPECT_EQ(kp_thread_sample(t, v, 1), KP_OK) << kp_error_last_message();
    EXPECT_GT(v[0], 0u);
    kp_thread_free(t);
    EXPECT_EQ(kp_thread_user_reads(nullptr), -1);
    EXPECT_EQ(kp_thread_user_reads_reason(nullptr), nullptr);
    // The sampler says yes or no with a reason, consistently.
    const char *why = kp_sampler_user_reads_reason(s);
    ASSERT_NE(why, nullptr);
    EXPECT_EQ(kp_sampler_user_reads(s), why[0] == '\0' ? 1 : 0);
    EXPECT_EQ(kp_sampler_user_reads(nullptr), -1);
    EXPECT_EQ(kp_sampler_user_reads_reason(nullptr), nullptr);
    kp_sampler_free(s);
}

TEST(UserReadApi, TheSwitchTurnsThemOffAndSaysWho) {
    setenv("KPC_USER_READS", "0", 1);
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_sampler_user_reads(s), 0);
    EXPECT_STREQ(kp_sampler_user_reads_reason(s), "turned off by KPC_USER_READS=0");
    const char *names[] = {"task-clock"};
    kp_thread_t *t = nullptr;
    ASSERT_EQ(kp_thread_new(&t, s, names, 1), KP_OK) << kp_error_last_message();
    EXPECT_STREQ(kp_thread_user_reads_reason(t), "turned off by KPC_USER_READS=0");
    kp_thread_free(t);
    kp_sampler_free(s);

    // The option wins over the environment.
    kp_sampler_options_t o;
    ASSERT_EQ(kp_sampler_options_init(&o, KP_SAMPLER_OPTIONS_VERSION), KP_OK);
    EXPECT_EQ(o.user_reads, KP_USER_READS_AUTO);
    o.user_reads = KP_USER_READS_ON;
    ASSERT_EQ(kp_sampler_new(&s, &o), KP_OK) << kp_error_last_message();
    EXPECT_STRNE(kp_sampler_user_reads_reason(s), "turned off by KPC_USER_READS=0");
    kp_sampler_free(s);
    unsetenv("KPC_USER_READS");
    o.user_reads = KP_USER_READS_OFF;
    ASSERT_EQ(kp_sampler_new(&s, &o), KP_OK) << kp_error_last_message();
    EXPECT_STREQ(kp_sampler_user_reads_reason(s),
                 "turned off by kp_sampler_options_t.user_reads = KP_USER_READS_OFF");
    kp_sampler_free(s);
}

// KPC_USER_READS follows the rule of every KPC_* choice: a privileged process ignores it.
TEST(UserReadApi, APrivilegedProcessIgnoresTheVariable) {
    setenv("KPC_USER_READS", "0", 1);
    kpc::set_privileged_reason_for_testing("setuid process");
    kp_sampler_t *s = nullptr;
    const int rc = kp_sampler_new(&s, nullptr);
    const std::string ignored = kp_ignored_environment();
    const std::string why = rc == KP_OK ? kp_sampler_user_reads_reason(s) : "";
    kp_sampler_free(s);
    kpc::set_privileged_reason_for_testing(nullptr);
    unsetenv("KPC_USER_READS");
    ASSERT_EQ(rc, KP_OK) << kp_error_last_message();
    EXPECT_NE(why, "turned off by KPC_USER_READS=0");
    EXPECT_NE(ignored.find("KPC_USER_READS"), std::string::npos) << ignored;
}

TEST(UserReadApi, BadValuesAreRefusedByName) {
    setenv("KPC_USER_READS", "no", 1);
    kp_sampler_t *s = nullptr;
    EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_EINVAL);
    EXPECT_NE(std::string(kp_error_last_message()).find("KPC_USER_READS='no'"), std::string::npos)
        << kp_error_last_message();
    unsetenv("KPC_USER_READS");
    kp_sampler_options_t o;
    ASSERT_EQ(kp_sampler_options_init(&o, KP_SAMPLER_OPTIONS_VERSION), KP_OK);
    int bad = 7;
    std::memcpy(&o.user_reads, &bad, sizeof bad);
    EXPECT_EQ(kp_sampler_new(&s, &o), KP_EINVAL);
    EXPECT_NE(std::string(kp_error_last_message()).find("user_reads is 7"), std::string::npos)
        << kp_error_last_message();
}

// A caller built against version 1 has a smaller structure: init writes nothing past it,
// and kp_sampler_new reads nothing past it.
TEST(UserReadApi, VersionOneOptionsEndBeforeUserReads) {
    kp_sampler_options_t o;
    std::memset(&o, 0xab, sizeof o);
    ASSERT_EQ(kp_sampler_options_init(&o, 1), KP_OK);
    unsigned char tail[sizeof o.user_reads];
    std::memcpy(tail, &o.user_reads, sizeof tail);
    for (unsigned char b : tail) EXPECT_EQ(b, 0xab);
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, &o), KP_OK) << kp_error_last_message();  // 0xabab... ignored
    kp_sampler_free(s);
}

}  // namespace
