// kpc/thread.h through the public header only, with software events (real kernel).
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/workload.hpp"

namespace {

struct Sampler {
    kp_sampler_t *s = nullptr;
    Sampler() { EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message(); }
    ~Sampler() { kp_sampler_free(s); }
};

kp_thread_t *make_thread(kp_sampler_t *s, std::vector<const char *> names) {
    kp_thread_t *t = nullptr;
    EXPECT_EQ(kp_thread_new(&t, s, names.data(), names.size()), KP_OK) << kp_error_last_message();
    return t;
}

// Touches `pages` fresh pages so each one faults once.
void touch_pages(size_t pages) { ASSERT_TRUE(kpc_test::touch_fresh_pages(pages)); }

}  // namespace

TEST(ThreadNew, RejectsBadArguments) {
    Sampler s;
    const char *names[] = {"task-clock", nullptr};
    kp_thread_t *t = reinterpret_cast<kp_thread_t *>(0x1);
    EXPECT_EQ(kp_thread_new(nullptr, s.s, names, 1), KP_EINVAL);
    EXPECT_EQ(kp_thread_new(&t, nullptr, names, 1), KP_EINVAL);
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(kp_thread_new(&t, s.s, nullptr, 1), KP_EINVAL);
    EXPECT_EQ(kp_thread_new(&t, s.s, names, 0), KP_EINVAL);
    EXPECT_EQ(kp_thread_new(&t, s.s, names, 33), KP_EINVAL);
    EXPECT_EQ(kp_thread_new(&t, s.s, names, 2), KP_EINVAL);  // names[1] is NULL
    EXPECT_NE(std::string(kp_error_last_message()).find("events[1]"), std::string::npos);
    const char *dup[] = {"task-clock", "task-clock"};
    EXPECT_EQ(kp_thread_new(&t, s.s, dup, 2), KP_EINVAL);
    EXPECT_NE(std::string(kp_error_last_message()).find("twice"), std::string::npos);
}

TEST(ThreadNew, UnknownAndMalformedNames) {
    Sampler s;
    kp_thread_t *t = nullptr;
    const char *unknown[] = {"task-clock", "no-such-event"};
    EXPECT_EQ(kp_thread_new(&t, s.s, unknown, 2), KP_EUNKNOWN_EVENT);
    EXPECT_NE(std::string(kp_error_last_message()).find("no-such-event"), std::string::npos);
    const char *malformed[] = {"r12zz"};
    EXPECT_EQ(kp_thread_new(&t, s.s, malformed, 1), KP_EUNKNOWN_EVENT);
    EXPECT_EQ(t, nullptr);
}

TEST(ThreadNew, HardwareEventWithoutPmuIsUnavailable) {
    Sampler s;
    const kp_event_t *cycles = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&cycles, s.s, "cycles"), KP_OK);
    if (kp_event_is_available(cycles)) GTEST_SKIP() << "this machine has a hardware PMU";
    const char *names[] = {"task-clock", "cycles"};
    kp_thread_t *t = nullptr;
    EXPECT_EQ(kp_thread_new(&t, s.s, names, 2), KP_EUNAVAILABLE);
    std::string msg = kp_error_last_message();
    EXPECT_NE(msg.find("cycles"), std::string::npos) << msg;
    EXPECT_NE(msg.find("virtual machine without a PMU"), std::string::npos) << msg;
}

TEST(ThreadLifecycle, SampleBeforeStartIsAStateError) {
    Sampler s;
    kp_thread_t *t = make_thread(s.s, {"task-clock"});
    uint64_t v[1];
    EXPECT_EQ(kp_thread_sample(t, v, 1), KP_ESTATE);
    EXPECT_NE(std::string(kp_error_last_message()).find("kp_thread_start"), std::string::npos);
    kp_thread_free(t);
}

TEST(ThreadLifecycle, StartAndStopAreIdempotent) {
    Sampler s;
    kp_thread_t *t = make_thread(s.s, {"task-clock"});
    EXPECT_EQ(kp_thread_is_running(t), 0);
    EXPECT_EQ(kp_thread_stop(t), KP_OK);  // stop before start: nothing to do
    EXPECT_EQ(kp_thread_start(t), KP_OK);
    EXPECT_EQ(kp_thread_start(t), KP_OK);
    EXPECT_EQ(kp_thread_is_running(t), 1);
    EXPECT_EQ(kp_thread_stop(t), KP_OK);
    EXPECT_EQ(kp_thread_stop(t), KP_OK);
    EXPECT_EQ(kp_thread_is_running(t), 0);
    kp_thread_free(t);
}

TEST(ThreadLifecycle, StopFreezesTotalsAndStartResumes) {
    Sampler s;
    kp_thread_t *t = make_thread(s.s, {"page-faults"});
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    touch_pages(64);
    ASSERT_EQ(kp_thread_stop(t), KP_OK);
    uint64_t a = 0, b = 0, c = 0;
    ASSERT_EQ(kp_thread_sample(t, &a, 1), KP_OK);
    touch_pages(256);  // not counted: stopped
    ASSERT_EQ(kp_thread_sample(t, &b, 1), KP_OK);
    EXPECT_EQ(a, b);
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    touch_pages(256);
    ASSERT_EQ(kp_thread_sample(t, &c, 1), KP_OK);
    EXPECT_GE(c, b + 256);
    kp_thread_free(t);
}

// Every event of a set resumes at once, not only the first: a restarted group whose later
// members waited for the next context switch would undercount them (and skew ratios such
// as instructions per cycle) for the work right after kp_thread_start.
TEST(ThreadLifecycle, RestartResumesEveryEventOfTheSetAtOnce) {
    Sampler s;
    kp_thread_t *t = make_thread(s.s, {"task-clock", "page-faults", "minor-faults"});
    for (int round = 0; round < 3; ++round) {
        ASSERT_EQ(kp_thread_start(t), KP_OK);
        ASSERT_EQ(kp_thread_stop(t), KP_OK);
    }
    uint64_t frozen[3], before[3], after[3];
    ASSERT_EQ(kp_thread_sample(t, frozen, 3), KP_OK);
    touch_pages(64);  // stopped: no event of the set counts this
    ASSERT_EQ(kp_thread_sample(t, before, 3), KP_OK);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(before[i], frozen[i]) << "event " << i << " ran while stopped";
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    touch_pages(256);
    ASSERT_EQ(kp_thread_sample(t, after, 3), KP_OK);
    EXPECT_GT(after[0], before[0]) << "task-clock did not resume";
    EXPECT_GE(after[1], before[1] + 256) << "page-faults (second in the set) did not resume";
    EXPECT_GE(after[2], before[2] + 256) << "minor-faults (third in the set) did not resume";
    kp_thread_free(t);
}

TEST(ThreadSample, ValuesFollowTheCallersOrder) {
    Sampler s;
    for (int order = 0; order < 2; ++order) {
        kp_thread_t *t = order ? make_thread(s.s, {"task-clock", "page-faults"})
                               : make_thread(s.s, {"page-faults", "task-clock"});
        const size_t pf = order ? 1 : 0, clk = order ? 0 : 1;
        EXPECT_STREQ(kp_event_name(kp_thread_event_at(t, pf)), "page-faults");
        EXPECT_STREQ(kp_event_name(kp_thread_event_at(t, clk)), "task-clock");
        ASSERT_EQ(kp_thread_start(t), KP_OK);
        touch_pages(500);
        uint64_t v[2];
        ASSERT_EQ(kp_thread_sample(t, v, 2), KP_OK);
        EXPECT_GE(v[pf], 500u);
        // 500 page faults take far more than 500 ns of CPU time.
        EXPECT_GT(v[clk], v[pf] * 100);
        kp_thread_free(t);
    }
}

TEST(ThreadSample, BufferChecks) {
    Sampler s;
    kp_thread_t *t = make_thread(s.s, {"task-clock", "page-faults"});
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    uint64_t v[2];
    EXPECT_EQ(kp_thread_sample(t, v, 1), KP_EBUFSIZE);
    EXPECT_EQ(kp_thread_sample(t, nullptr, 2), KP_EINVAL);
    EXPECT_EQ(kp_thread_sample(nullptr, v, 2), KP_EINVAL);
    uint64_t big[8];
    EXPECT_EQ(kp_thread_sample(t, big, 8), KP_OK);  // larger buffers are fine
    kp_thread_free(t);
}

TEST(ThreadSample, FullSampleReportsTimesAndCompleteness) {
    Sampler s;
    kp_thread_t *t = make_thread(s.s, {"task-clock", "context-switches"});
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    volatile uint64_t x = 0;
    for (int i = 0; i < 2000000; ++i) x = x + i;
    uint64_t v[2], enabled = 0, running = 0;
    uint8_t complete[2] = {7, 7};
    ASSERT_EQ(kp_thread_sample_full(t, v, complete, 2, &enabled, &running), KP_OK);
    EXPECT_GT(enabled, 0u);
    EXPECT_LE(running, enabled);
    // Software events are never multiplexed.
    EXPECT_EQ(running, enabled);
    EXPECT_EQ(complete[0], 1);
    EXPECT_EQ(complete[1], 1);
    // Optional outputs may be NULL.
    EXPECT_EQ(kp_thread_sample_full(t, v, nullptr, 2, nullptr, nullptr), KP_OK);
    kp_thread_free(t);
}

TEST(ThreadRules, UseFromAnotherThreadIsRefusedAndHarmless) {
    Sampler s;
    kp_thread_t *t = make_thread(s.s, {"task-clock"});
    std::thread([&] {
        uint64_t v[1];
        EXPECT_EQ(kp_thread_start(t), KP_EWRONG_THREAD);
        EXPECT_NE(std::string(kp_error_last_message()).find("thread that created it"), std::string::npos);
        EXPECT_EQ(kp_thread_sample(t, v, 1), KP_EWRONG_THREAD);
        EXPECT_EQ(kp_thread_stop(t), KP_EWRONG_THREAD);
        // Read-only accessors are allowed from any thread.
        EXPECT_EQ(kp_thread_event_count(t), 1u);
    }).join();
    EXPECT_EQ(kp_thread_is_running(t), 0);  // the foreign start did nothing
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    std::thread([&] { EXPECT_EQ(kp_thread_stop(t), KP_EWRONG_THREAD); }).join();
    EXPECT_EQ(kp_thread_is_running(t), 1);
    std::thread([&] { kp_thread_free(t); }).join();  // finalizers free from other threads
}

TEST(ThreadRules, NullHandleIsHarmless) {
    kp_thread_free(nullptr);
    EXPECT_EQ(kp_thread_start(nullptr), KP_EINVAL);
    EXPECT_EQ(kp_thread_stop(nullptr), KP_EINVAL);
    EXPECT_EQ(kp_thread_is_running(nullptr), 0);
    EXPECT_EQ(kp_thread_event_count(nullptr), 0u);
    EXPECT_EQ(kp_thread_event_at(nullptr, 0), nullptr);
    uint64_t v[1];
    EXPECT_EQ(kp_thread_sample_full(nullptr, v, nullptr, 1, nullptr, nullptr), KP_EINVAL);
}

TEST(ThreadLifetime, SamplerFreedFirstLeavesThreadWorking) {
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK);
    const char *names[] = {"page-faults"};
    kp_thread_t *t = nullptr;
    ASSERT_EQ(kp_thread_new(&t, s, names, 1), KP_OK);
    const kp_event_t *e = kp_thread_event_at(t, 0);
    kp_sampler_free(s);  // the thread keeps the session alive
    EXPECT_STREQ(kp_event_name(e), "page-faults");
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    touch_pages(32);
    uint64_t v = 0;
    ASSERT_EQ(kp_thread_sample(t, &v, 1), KP_OK);
    EXPECT_GE(v, 32u);
    kp_thread_free(t);
}

TEST(ThreadLifetime, ThreadFreedFirst) {
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK);
    const char *names[] = {"task-clock"};
    kp_thread_t *t = nullptr;
    ASSERT_EQ(kp_thread_new(&t, s, names, 1), KP_OK);
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    kp_thread_free(t);
    EXPECT_GT(kp_sampler_event_count(s), 0u);
    kp_sampler_free(s);
}

TEST(ThreadLifetime, ReleaseStopsSamplingOfExistingThreads) {
    Sampler s;
    kp_thread_t *t = make_thread(s.s, {"task-clock"});
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    ASSERT_EQ(kp_sampler_release(s.s), KP_OK);
    uint64_t v[1];
    EXPECT_EQ(kp_thread_sample(t, v, 1), KP_ESTATE);
    EXPECT_EQ(kp_thread_start(t), KP_ESTATE);
    EXPECT_EQ(kp_thread_stop(t), KP_OK);
    kp_thread_free(t);
}
