// The recount backend through the public C API, against the simulated libSystem: what it
// counts, how the parts add up, per-thread isolation, start/stop, and every simulator variant.
#include <cmath>
#include <thread>

#include "recount_fixture.hpp"

using namespace recount_test;

namespace {

// 30 ms of work between two samples of `t`; returns the differences and the thread's CPU
// time measured around them.
struct Delta {
    std::vector<uint64_t> counts;
    uint64_t cpu_ns;
};

Delta measure(kp_thread_t *t, uint64_t ms = 30) {
    std::vector<uint64_t> a(kp_thread_event_count(t)), b(a.size());
    const uint64_t t0 = thread_cpu_ns();
    EXPECT_EQ(kp_thread_sample(t, a.data(), a.size()), KP_OK) << kp_error_last_message();
    spin_ms(ms);
    EXPECT_EQ(kp_thread_sample(t, b.data(), b.size()), KP_OK) << kp_error_last_message();
    const uint64_t t1 = thread_cpu_ns();
    Delta d{{}, t1 - t0};
    for (size_t i = 0; i < a.size(); ++i) d.counts.push_back(b[i] - a[i]);
    return d;
}

}  // namespace

TEST_F(Recount, NamesItselfAndMayCount) {
    open();
    EXPECT_STREQ(kp_sampler_backend_name(sampler_), "recount");
    EXPECT_STREQ(kp_sampler_backend_reason(sampler_), "named by KPC_BACKEND=recount");
    EXPECT_EQ(kp_sampler_access(sampler_), KP_OK) << kp_error_last_message();
    EXPECT_NE(std::string(kp_sampler_pmu_name(sampler_)).find("macOS 15.5"), std::string::npos)
        << kp_sampler_pmu_name(sampler_);
}

TEST_F(Recount, CyclesAndInstructionsTrackThreadCpuTime) {
    open();
    kp_thread_t *t = thread({"cycles", "instructions", "task-clock"});
    ASSERT_NE(t, nullptr);
    Delta d = measure(t);
    const double expected = kCyclesPerNs * static_cast<double>(d.cpu_ns);
    // The samples lie inside the measured interval: a little less, never more.
    EXPECT_LE(static_cast<double>(d.counts[0]), expected * 1.001);
    EXPECT_GE(static_cast<double>(d.counts[0]), expected * 0.95);
    EXPECT_NEAR(static_cast<double>(d.counts[1]), kInstructionsPerCycle * static_cast<double>(d.counts[0]),
                kInstructionsPerCycle * 3.0);
    EXPECT_GE(static_cast<double>(d.counts[2]), static_cast<double>(d.cpu_ns) * 0.95);
    EXPECT_LE(static_cast<double>(d.counts[2]), static_cast<double>(d.cpu_ns) * 1.001 + 1000);
}

TEST_F(Recount, PerfLevelsAddUpToTheTotal) {
    open({{"RCSIM_P_SHARE", "0.8"}});
    kp_thread_t *t = thread({"cycles", "p-cycles", "e-cycles", "instructions", "p-instructions",
                             "e-instructions"});
    ASSERT_NE(t, nullptr);
    spin_ms(20);
    std::vector<uint64_t> v = sample(t);
    EXPECT_EQ(v[1] + v[2], v[0]);
    EXPECT_EQ(v[4] + v[5], v[3]);
    // P is perf level 0: 80 % of the work here.
    EXPECT_NEAR(static_cast<double>(v[1]) / static_cast<double>(v[0]), 0.8, 0.01);
    EXPECT_NEAR(static_cast<double>(v[4]) / static_cast<double>(v[3]), 0.8, 0.01);
}

// macOS 13.0-14.1 return the per-level array as [E, P]; libkpc must still put P first.
TEST_F(Recount, EfficiencyFirstOrderOfMacos13) {
    for (const char *version : {"13.0", "14.1"}) {
        SCOPED_TRACE(version);
        open({{"RCSIM_MACOS", version}, {"RCSIM_P_SHARE", "0.8"}});
        kp_thread_t *t = thread({"cycles", "p-cycles", "e-cycles", "task-clock"});
        ASSERT_NE(t, nullptr);
        spin_ms(20);
        std::vector<uint64_t> v = sample(t);
        EXPECT_EQ(v[1] + v[2], v[0]);
        EXPECT_NEAR(static_cast<double>(v[1]) / static_cast<double>(v[0]), 0.8, 0.01);
        close();
    }
}

TEST_F(Recount, OnePerfLevelReadsZeroOnE) {
    for (const char *version : {"15.5", "13.3"}) {
        SCOPED_TRACE(version);
        open({{"RCSIM_PERF_LEVELS", "1"}, {"RCSIM_MACOS", version}});
        EXPECT_NE(std::string(kp_event_description(event("e-cycles"))).find("one perf level"),
                  std::string::npos);
        kp_thread_t *t = thread({"cycles", "p-cycles", "e-cycles", "e-instructions"});
        ASSERT_NE(t, nullptr);
        spin_ms(10);
        std::vector<uint64_t> v = sample(t);
        EXPECT_GT(v[0], 0u);
        EXPECT_EQ(v[1], v[0]);
        EXPECT_EQ(v[2], 0u);
        EXPECT_EQ(v[3], 0u);
        close();
    }
}

TEST_F(Recount, TimesAreNanosecondsWhateverTheTimebase) {
    for (const char *tb : {"125/3", "1/1"}) {
        SCOPED_TRACE(tb);
        open({{"RCSIM_TIMEBASE", tb}});
        kp_thread_t *t = thread({"task-clock", "user-time", "system-time"});
        ASSERT_NE(t, nullptr);
        Delta d = measure(t);
        EXPECT_GE(static_cast<double>(d.counts[0]), static_cast<double>(d.cpu_ns) * 0.95);
        EXPECT_LE(static_cast<double>(d.counts[0]), static_cast<double>(d.cpu_ns) * 1.001 + 1000);
        // user + system = task-clock, up to one ns of rounding per conversion.
        EXPECT_NEAR(static_cast<double>(d.counts[1] + d.counts[2]), static_cast<double>(d.counts[0]), 4.0);
        close();
    }
}

TEST_F(Recount, ThreadsCountInIsolation) {
    open();
    kp_thread_t *mine = thread({"cycles"});
    ASSERT_NE(mine, nullptr);
    uint64_t other_cycles = 0, other_cpu = 0;
    std::thread other([&] {
        kp_thread_t *t = nullptr;
        const char *names[] = {"cycles"};
        ASSERT_EQ(kp_thread_new(&t, sampler_, names, 1), KP_OK) << kp_error_last_message();
        ASSERT_EQ(kp_thread_start(t), KP_OK);
        uint64_t a = 0, b = 0;
        kp_thread_sample(t, &a, 1);
        const uint64_t c0 = thread_cpu_ns();
        spin_ms(40);
        other_cpu = thread_cpu_ns() - c0;
        EXPECT_EQ(kp_thread_sample(t, &b, 1), KP_OK);
        other_cycles = b - a;
        kp_thread_free(t);
    });
    uint64_t before = sample(mine)[0];
    other.join();  // this thread sleeps meanwhile
    uint64_t mine_delta = sample(mine)[0] - before;
    EXPECT_GE(static_cast<double>(other_cycles), kCyclesPerNs * static_cast<double>(other_cpu) * 0.9);
    EXPECT_LT(mine_delta, other_cycles / 10) << "the idle thread was charged the busy one's cycles";
}

TEST_F(Recount, StopPausesTheTotals) {
    open();
    kp_thread_t *t = thread({"cycles", "task-clock"});
    ASSERT_NE(t, nullptr);
    spin_ms(10);
    ASSERT_EQ(kp_thread_stop(t), KP_OK);
    std::vector<uint64_t> stopped = sample(t);
    spin_ms(30);  // not counted
    EXPECT_EQ(sample(t), stopped);
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    const uint64_t c0 = thread_cpu_ns();
    spin_ms(10);
    std::vector<uint64_t> resumed = sample(t);
    const uint64_t counted_ns = thread_cpu_ns() - c0;
    const uint64_t grew = resumed[1] - stopped[1];
    EXPECT_LE(grew, counted_ns + 1000000) << "the 30 ms while stopped were counted";
    EXPECT_GE(static_cast<double>(grew), static_cast<double>(counted_ns) * 0.8);
}

TEST_F(Recount, OtherEventsNeedRootAndKperf) {
    open();
    EXPECT_FALSE(kp_event_is_available(event("branches")));
    const char *names[] = {"cycles", "branches"};
    kp_thread_t *t = nullptr;
    EXPECT_EQ(kp_thread_new(&t, sampler_, names, 2), KP_EUNAVAILABLE);
    std::string msg = kp_error_last_message();
    EXPECT_NE(msg.find("root"), std::string::npos) << msg;
    EXPECT_NE(msg.find("kperf"), std::string::npos) << msg;
    // A kpep name only kperf knows.
    const kp_event_t *e = nullptr;
    EXPECT_EQ(kp_sampler_event_find(&e, sampler_, "L1D_CACHE_MISS_LD"), KP_EUNKNOWN_EVENT);
    msg = kp_error_last_message();
    EXPECT_NE(msg.find("kperf backend"), std::string::npos) << msg;
}

TEST_F(Recount, CountsIncludeKernelMode) {
    open();
    EXPECT_EQ(kp_event_counts_kernel(event("cycles")), 1);
    EXPECT_EQ(kp_event_counts_kernel(event("instructions")), 1);
    EXPECT_EQ(kp_event_counts_kernel(event("user-time")), 0);
}

TEST_F(Recount, TimesAreNanosecondsCountsAreCounts) {
    open();
    for (const char *time : {"task-clock", "user-time", "system-time"})
        EXPECT_EQ(kp_event_unit(event(time)), KP_EVENT_UNIT_NANOSECONDS) << time;
    for (const char *count : {"cycles", "instructions", "p-cycles"})
        EXPECT_EQ(kp_event_unit(event(count)), KP_EVENT_UNIT_COUNT) << count;
    // cpu-clock is not recount's, yet keeps its unit while unavailable.
    EXPECT_EQ(kp_event_unit(event("cpu-clock")), KP_EVENT_UNIT_NANOSECONDS);
}

TEST_F(Recount, Macos12HasTotalsOnly) {
    open({{"RCSIM_MACOS", "12.6"}});
    EXPECT_EQ(kp_sampler_access(sampler_), KP_OK) << kp_error_last_message();
    kp_thread_t *t = thread({"cycles", "instructions"});
    ASSERT_NE(t, nullptr);
    spin_ms(5);
    std::vector<uint64_t> v = sample(t);
    EXPECT_GT(v[0], 0u);
    EXPECT_EQ(v[1], kInstructionsPerCycle * v[0]);
    for (const char *name : {"p-cycles", "e-instructions", "task-clock"}) {
        const kp_event_t *e = event(name);
        EXPECT_FALSE(kp_event_is_available(e)) << name;
        EXPECT_NE(std::string(kp_event_unavailable_reason(e)).find("13.0"), std::string::npos)
            << kp_event_unavailable_reason(e);
    }
}

TEST_F(Recount, VirtualMachineIsUnsupportedAndSaysWhy) {
    open({{"RCSIM_VM", "1"}});
    EXPECT_EQ(kp_sampler_access(sampler_), KP_EUNSUPPORTED);
    std::string msg = kp_error_last_message();
    EXPECT_NE(msg.find("virtual machine"), std::string::npos) << msg;
    EXPECT_NE(msg.find("12.3"), std::string::npos) << msg;
    const char *names[] = {"cycles"};
    kp_thread_t *t = nullptr;
    EXPECT_EQ(kp_thread_new(&t, sampler_, names, 1), KP_EUNSUPPORTED);
}

TEST_F(Recount, MissingThreadSelfcountsIsUnsupported) {
    open({}, KPC_TEST_RCSIM_NOSELFCOUNTS);
    EXPECT_EQ(kp_sampler_access(sampler_), KP_EUNSUPPORTED);
    std::string msg = kp_error_last_message();
    EXPECT_NE(msg.find("thread_selfcounts"), std::string::npos) << msg;
    EXPECT_NE(msg.find("12.3"), std::string::npos) << msg;
}

TEST(RecountLoading, RelativeLibraryPathIsRefused) {
    setenv("KPC_BACKEND", "recount", 1);
    setenv("KPC_LIBSYSTEM_PATH", "librecount_sim.so", 1);
    kp_sampler_t *s = nullptr;
    EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_EINVAL);
    EXPECT_NE(std::string(kp_error_last_message()).find("absolute"), std::string::npos);
}

TEST(RecountLoading, LinuxWithoutLibraryIsUnsupported) {
    setenv("KPC_BACKEND", "recount", 1);
    unsetenv("KPC_LIBSYSTEM_PATH");
    kp_sampler_t *s = nullptr;
    EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_EUNSUPPORTED);
    EXPECT_NE(std::string(kp_error_last_message()).find("KPC_LIBSYSTEM_PATH"), std::string::npos);
}
