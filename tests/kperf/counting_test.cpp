// kp_thread_t semantics on Apple: running totals while started, system-wide counting
// reference-counted across handles, and the policy for a second event set.
#include <thread>

#include "kperf_fixture.hpp"

namespace kperf_test {
namespace {

using Counting = KperfTest;

TEST_F(Counting, TotalsGrowOnlyWhileStarted) {
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"instructions", "branches"}), KP_OK) << last_message();
    uint64_t v[2] = {};
    EXPECT_EQ(kp_thread_sample(t.get(), v, 2), KP_ESTATE) << "sample before start";

    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    EXPECT_EQ(kp_thread_is_running(t.get()), 1);
    burn(4);
    uint64_t a[2], b[2], c[2], d[2];
    ASSERT_EQ(kp_thread_sample(t.get(), a, 2), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_stop(t.get()), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_sample(t.get(), b, 2), KP_OK) << last_message();
    burn(4);  // not counted: stopped
    ASSERT_EQ(kp_thread_sample(t.get(), c, 2), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    burn(4);
    ASSERT_EQ(kp_thread_sample(t.get(), d, 2), KP_OK) << last_message();
    for (int i = 0; i < 2; ++i) {
        EXPECT_GT(a[i], 0u);
        EXPECT_GE(b[i], a[i]);
        EXPECT_EQ(c[i], b[i]) << "a stopped handle must not count";
        EXPECT_GT(d[i], c[i]) << "a restarted handle resumes from its total";
    }
    // Stop twice / start twice are no-ops.
    EXPECT_EQ(kp_thread_start(t.get()), KP_OK);
    EXPECT_EQ(kp_thread_stop(t.get()), KP_OK);
    EXPECT_EQ(kp_thread_stop(t.get()), KP_OK);
    EXPECT_EQ(kernel_state().counting, 0u) << "last stop switches counting off";
    EXPECT_EQ(kernel_state().thread_counting, 0u);
}

TEST_F(Counting, ConfigIsProgrammedBeforeCountingStarts) {
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"branches", "l1d-load-misses"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    kpsim_kernel_state st = kernel_state();
    EXPECT_EQ(st.config_words, 2u);
    // The simulator applies the configuration when counting starts (macOS 26.6 rule):
    // had libkpc enabled counting first, nothing would be live.
    EXPECT_EQ(st.applied_config_words, 2u);
    uint64_t v[2];
    burn(3);
    ASSERT_EQ(kp_thread_sample(t.get(), v, 2), KP_OK) << last_message();
    EXPECT_GT(v[0], 0u);
    EXPECT_GT(v[1], 0u);
}

TEST_F(Counting, ConfigurableEventsCountUserSpaceOnly) {
    // Like the Linux backend's exclude_kernel: kpep's user-only flag gives words with the
    // EL0 enables and without EL1EN.
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"branches", "l1d-load-misses", "MAP_STALL"}), KP_OK)
        << last_message();
    kpsim_kernel_state st = kernel_state();
    int words = 0;
    for (uint64_t w : st.config) {
        if (!w) continue;
        ++words;
        EXPECT_EQ(w & KP_KPC_CFG_EL1EN, 0u) << std::hex << w;
        EXPECT_NE(w & (KP_KPC_CFG_EL0A64EN | KP_KPC_CFG_EL0A32EN), 0u) << std::hex << w;
    }
    EXPECT_EQ(words, 3);
}

TEST_F(Counting, FixedOnlySetsShareTheConfiguration) {
    Sampler s = must_sampler();
    Thread a, b;
    ASSERT_EQ(new_thread(&a, s.get(), {"cycles"}), KP_OK);
    ASSERT_EQ(kp_thread_start(a.get()), KP_OK);
    ASSERT_EQ(new_thread(&b, s.get(), {"instructions"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(b.get()), KP_OK) << last_message();
    burn(2);
    uint64_t x = 0, y = 0;
    ASSERT_EQ(kp_thread_sample(a.get(), &x, 1), KP_OK);
    ASSERT_EQ(kp_thread_sample(b.get(), &y, 1), KP_OK);
    EXPECT_GT(x, 0u);
    EXPECT_GT(y, 0u);
}

TEST_F(Counting, FixedOnlySetNeedsNoConfiguration) {
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles", "instructions"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    EXPECT_EQ(kernel_state().counting & KP_KPC_CLASS_FIXED_MASK, KP_KPC_CLASS_FIXED_MASK);
    burn(2);
    uint64_t v[2];
    ASSERT_EQ(kp_thread_sample(t.get(), v, 2), KP_OK) << last_message();
    EXPECT_GT(v[0], 0u);
    EXPECT_GT(v[1], 0u);
}

TEST_F(Counting, AliasesAndNativeNamesAreAccepted) {
    Sampler s = must_sampler();
    const kp_event_t *e = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&e, s.get(), "Cycles"), KP_OK) << last_message();
    EXPECT_STREQ(kp_event_native_name(e), "FIXED_CYCLES");
    EXPECT_EQ(kp_event_kind(e), KP_EVENT_FIXED);
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"Instructions", "INST_BRANCH"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    burn(2);
    uint64_t v[2];
    ASSERT_EQ(kp_thread_sample(t.get(), v, 2), KP_OK);
    EXPECT_GT(v[0], v[1]) << "more instructions than branches";
    EXPECT_GT(v[1], 0u);
    EXPECT_EQ(kp_sampler_event_find(&e, s.get(), "NO_SUCH_EVENT"), KP_EUNKNOWN_EVENT);
}

TEST_F(Counting, SoftwareEventsAreUnavailableOnThisBackend) {
    Sampler s = must_sampler();
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"cycles", "page-faults"}), KP_EUNAVAILABLE);
    EXPECT_NE(last_message().find("page-faults"), std::string::npos) << last_message();
    EXPECT_EQ(new_thread(&t, s.get(), {"ref-cycles"}), KP_EUNAVAILABLE);
}

// Policy (docs/apple.md): one counter configuration at a time, shared by every handle
// that needs the same one; a different one is KP_EBUSY until the others stop.
TEST_F(Counting, SecondEventSetIsBusyWhileAnotherCounts) {
    Sampler s = must_sampler();
    Thread a, b, c;
    ASSERT_EQ(new_thread(&a, s.get(), {"cycles", "branches"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(a.get()), KP_OK) << last_message();

    EXPECT_EQ(new_thread(&b, s.get(), {"cycles", "l1d-load-misses"}), KP_EBUSY);
    std::string msg = last_message();
    EXPECT_NE(msg.find("branches"), std::string::npos) << msg;
    EXPECT_NE(msg.find("docs/apple.md"), std::string::npos) << msg;

    // The same events, in any order, share the configuration.
    ASSERT_EQ(new_thread(&c, s.get(), {"branches", "cycles"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(c.get()), KP_OK) << last_message();

    // Stopping one does not stop the other.
    ASSERT_EQ(kp_thread_stop(a.get()), KP_OK);
    EXPECT_NE(kernel_state().counting, 0u);
    uint64_t x[2], y[2];
    ASSERT_EQ(kp_thread_sample(c.get(), x, 2), KP_OK);
    burn(3);
    ASSERT_EQ(kp_thread_sample(c.get(), y, 2), KP_OK);
    EXPECT_GT(y[0], x[0]);
    EXPECT_GT(y[1], x[1]);

    ASSERT_EQ(kp_thread_stop(c.get()), KP_OK);
    EXPECT_EQ(kernel_state().counting, 0u);
    // Nothing counts any more: the other set may now be created and counted.
    ASSERT_EQ(new_thread(&b, s.get(), {"cycles", "l1d-load-misses"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(b.get()), KP_OK) << last_message();
    // ...and the first set, created earlier, is now the busy one.
    EXPECT_EQ(kp_thread_start(a.get()), KP_EBUSY);
    EXPECT_NE(last_message().find("l1d-load-misses"), std::string::npos) << last_message();
}

TEST_F(Counting, FreeingARunningHandleReleasesItsShare) {
    Sampler s = must_sampler();
    Thread a, b;
    ASSERT_EQ(new_thread(&a, s.get(), {"branches"}), KP_OK);
    ASSERT_EQ(new_thread(&b, s.get(), {"branches"}), KP_OK);
    ASSERT_EQ(kp_thread_start(a.get()), KP_OK);
    ASSERT_EQ(kp_thread_start(b.get()), KP_OK);
    a.reset();
    EXPECT_NE(kernel_state().counting, 0u);
    b.reset();
    EXPECT_EQ(kernel_state().counting, 0u);
    EXPECT_EQ(kernel_state().thread_counting, 0u);
}

TEST_F(Counting, StrictFirstReadIsInvisible) {
    kpsim_set_strict_first_read(1);
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles", "branches"}), KP_OK);
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    burn(2);
    uint64_t v[2];
    ASSERT_EQ(kp_thread_sample(t.get(), v, 2), KP_OK) << last_message();
    EXPECT_GT(v[0], 0u);
}

TEST_F(Counting, OtherThreadsFirstReadIsInvisible) {
    // The thread that enables counting gets its buffer at once; others get EINVAL first.
    Sampler s = must_sampler();
    Thread main_t;
    ASSERT_EQ(new_thread(&main_t, s.get(), {"instructions"}), KP_OK);
    ASSERT_EQ(kp_thread_start(main_t.get()), KP_OK);
    int rc_new = -100, rc_start = -100, rc_sample = -100;
    uint64_t v = 0;
    std::thread worker([&] {
        kp_thread_t *t = nullptr;
        const char *names[] = {"instructions"};
        rc_new = kp_thread_new(&t, s.get(), names, 1);
        if (rc_new != KP_OK) return;
        rc_start = kp_thread_start(t);
        burn(3);
        rc_sample = kp_thread_sample(t, &v, 1);
        kp_thread_free(t);
    });
    worker.join();
    EXPECT_EQ(rc_new, KP_OK);
    EXPECT_EQ(rc_start, KP_OK);
    EXPECT_EQ(rc_sample, KP_OK);
    EXPECT_GT(v, 0u);
}

TEST_F(Counting, FullSampleReportsCompleteAndNoTimes) {
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles", "instructions", "branches"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    burn(2);
    uint64_t plain[3], full[3];
    uint8_t complete[3] = {9, 9, 9};
    uint64_t enabled = 77, running = 77;
    ASSERT_EQ(kp_thread_sample(t.get(), plain, 3), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_sample_full(t.get(), full, complete, 3, &enabled, &running), KP_OK)
        << last_message();
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(complete[i], 1) << "Apple counters are never multiplexed";
        EXPECT_GE(full[i], plain[i]) << "event " << i;
    }
    // kpc measures no enabled/running times: both read 0, as documented.
    EXPECT_EQ(enabled, 0u);
    EXPECT_EQ(running, 0u);
    // After stop the full sample returns the frozen totals, complete as before.
    ASSERT_EQ(kp_thread_stop(t.get()), KP_OK);
    uint64_t frozen[3], again[3];
    uint8_t complete2[3] = {0, 0, 0};
    ASSERT_EQ(kp_thread_sample_full(t.get(), frozen, complete2, 3, nullptr, nullptr), KP_OK);
    burn(2);
    ASSERT_EQ(kp_thread_sample_full(t.get(), again, nullptr, 3, nullptr, nullptr), KP_OK);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(complete2[i], 1);
        EXPECT_EQ(frozen[i], again[i]) << "event " << i;
    }
}

}  // namespace
}  // namespace kperf_test
