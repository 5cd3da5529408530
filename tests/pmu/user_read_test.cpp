// Issue 18: samples read from user space (each event's perf_event page and mrs) on the
// exact emulated PMU, against the same samples read with read(): exact counts through both
// paths, the path each handle reports, the fallbacks the kernel's page asks for
// (perf_user_access=0, software events, multiplexing), per-sample cost, isolation between
// threads, and a thread moved between CPUs (when the guest has more than one).
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "exact_loop.hpp"

namespace {

constexpr const char *kUserAccess = "/proc/sys/kernel/perf_user_access";

// Sets kernel.perf_user_access for one test and puts the old value back. `why` is set
// when the guest cannot change it (not root, or a kernel without the switch): decided by
// the file system, not by libkpc.
class UserAccess {
public:
    explicit UserAccess(int value) {
        std::ifstream in(kUserAccess);
        if (!(in >> old_)) {
            why_ = std::string(kUserAccess) + " is not readable: this kernel has no arm64 user access switch";
            return;
        }
        if (!write(value)) why_ = std::string("cannot write ") + kUserAccess + " (not root?)";
    }
    ~UserAccess() {
        if (old_ >= 0) write(old_);
    }
    const std::string &why() const { return why_; }

private:
    static bool write(int v) {
        std::ofstream out(kUserAccess);
        out << v << "\n";
        out.flush();
        return static_cast<bool>(out);
    }
    int old_ = -1;
    std::string why_;
};

#define REQUIRE_USER_ACCESS(ua)                        \
    do {                                               \
        if (!(ua).why().empty()) GTEST_SKIP() << (ua).why(); \
    } while (0)

kp_sampler_t *sampler(kp_user_reads_t reads) {
    kp_sampler_options_t o;
    EXPECT_EQ(kp_sampler_options_init(&o, KP_SAMPLER_OPTIONS_VERSION), KP_OK);
    o.user_reads = reads;
    kp_sampler_t *s = nullptr;
    EXPECT_EQ(kp_sampler_new(&s, &o), KP_OK) << kp_error_last_message();
    return s;
}

kp_thread_t *started(kp_sampler_t *s, std::vector<const char *> names) {
    kp_thread_t *t = nullptr;
    EXPECT_EQ(kp_thread_new(&t, s, names.data(), names.size()), KP_OK) << kp_error_last_message();
    if (t) EXPECT_EQ(kp_thread_start(t), KP_OK) << kp_error_last_message();
    return t;
}

// Each event's delta over a loop of n, minus nothing: the caller subtracts what it expects.
std::vector<int64_t> deltas(kp_thread_t *t, uint64_t n, size_t events) {
    std::vector<uint64_t> a(events), b(events);
    EXPECT_EQ(kp_thread_sample(t, a.data(), events), KP_OK) << kp_error_last_message();
    kpc_pmu::exact_loop(n);
    EXPECT_EQ(kp_thread_sample(t, b.data(), events), KP_OK) << kp_error_last_message();
    std::vector<int64_t> d(events);
    for (size_t i = 0; i < events; ++i) d[i] = static_cast<int64_t>(b[i] - a[i]);
    return d;
}

// {cycles, instructions} on `t`: the instruction offset over 2n, the same at every size,
// and cycles 2^shift per instruction. Returns the offset (the sample's own instructions).
int64_t exact_offset(kp_thread_t *t) {
    deltas(t, 10, 2);  // warm
    const uint64_t per = uint64_t(1) << kpc_pmu::icount_shift();
    int64_t first = -1;
    for (uint64_t n : {1000u, 10000u, 100000u}) {
        std::vector<int64_t> d = deltas(t, n, 2);
        const int64_t offset = d[1] - 2 * static_cast<int64_t>(n);
        std::printf("n=%llu: instructions %lld (offset %lld), cycles %lld\n", (unsigned long long)n,
                    (long long)d[1], (long long)offset, (long long)d[0]);
        EXPECT_EQ(static_cast<uint64_t>(d[0]), per * static_cast<uint64_t>(d[1])) << "n=" << n;
        if (first < 0) first = offset;
        EXPECT_EQ(offset, first) << "n=" << n;
    }
    return first;
}

TEST(UserReads, ExactCountsThroughBothPathsAndTheReportedPathIsTheOneTaken) {
    KPC_PMU_REQUIRE_GUEST();
    UserAccess ua(1);
    REQUIRE_USER_ACCESS(ua);
    kp_sampler_t *su = sampler(KP_USER_READS_AUTO);
    kp_sampler_t *sr = sampler(KP_USER_READS_OFF);
    EXPECT_EQ(kp_sampler_user_reads(su), 1) << kp_sampler_user_reads_reason(su);
    EXPECT_STREQ(kp_sampler_user_reads_reason(sr),
                 "turned off by kp_sampler_options_t.user_reads = KP_USER_READS_OFF");
    kp_thread_t *u = started(su, {"cycles", "instructions"});
    kp_thread_t *r = started(sr, {"cycles", "instructions"});
    ASSERT_EQ(kp_thread_user_reads(u), 1) << kp_thread_user_reads_reason(u);
    EXPECT_STREQ(kp_thread_user_reads_reason(u), "");
    EXPECT_EQ(kp_thread_user_reads(r), 0);
    const int64_t user = exact_offset(u);
    const int64_t sys = exact_offset(r);
    std::printf("sampling offset: user space %lld, read() %lld user instructions\n", (long long)user,
                (long long)sys);
    EXPECT_GT(user, 0);
    EXPECT_GT(sys, 0);
    // (User-mode instructions alone: the user-space path has more of them than read()'s
    // wrapper. What it saves is the kernel's: ASampleCostsAFractionOfARead.)

    // kp_thread_sample_full through the page: complete, times moving, not multiplexed.
    uint64_t v[2], e1 = 0, r1 = 0, e2 = 0, r2 = 0;
    uint8_t c[2] = {0, 0};
    ASSERT_EQ(kp_thread_sample_full(u, v, c, 2, &e1, &r1), KP_OK);
    kpc_pmu::exact_loop(100000);
    ASSERT_EQ(kp_thread_sample_full(u, v, c, 2, &e2, &r2), KP_OK);
    EXPECT_EQ(c[0], 1);
    EXPECT_EQ(c[1], 1);
    EXPECT_EQ(e2, r2);
    EXPECT_GT(e2, e1);
    // 200,000 instructions at 2^shift ns each have passed between the two.
    EXPECT_GE(e2 - e1, (uint64_t(200000) << kpc_pmu::icount_shift()));

    // calibrate goes through the same samples.
    uint64_t cu[2] = {0, 0}, cr[2] = {0, 0};
    ASSERT_EQ(kp_thread_calibrate(u, cu, 2, 0), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_thread_calibrate(r, cr, 2, 0), KP_OK) << kp_error_last_message();
    std::printf("calibrate instructions: user space %llu, read() %llu\n", (unsigned long long)cu[1],
                (unsigned long long)cr[1]);
    // An empty region costs a little less than the loop's offset (no loop call).
    EXPECT_GT(cu[1], 0u);
    EXPECT_LE(cu[1], static_cast<uint64_t>(user));
    EXPECT_GT(cr[1], 0u);
    EXPECT_LE(cr[1], static_cast<uint64_t>(sys));
    kp_thread_free(u);
    kp_thread_free(r);
    kp_sampler_free(su);
    kp_sampler_free(sr);
}

// User and kernel instructions of one kp_thread_sample of the first `n` of `names` on a
// sampler `s` of its own, counted by a second handle around 1000 samples.
uint64_t instructions_per_sample(kp_sampler_t *s, size_t n, int *user_reads) {
    static const char *const names[] = {"cycles", "instructions", "r8", "r10008", "r20008", "r30008"};
    kp_thread_t *t = nullptr;
    EXPECT_EQ(kp_thread_new(&t, s, names, n), KP_OK) << kp_error_last_message();
    if (!t) return 0;
    EXPECT_EQ(kp_thread_start(t), KP_OK) << kp_error_last_message();
    *user_reads = kp_thread_user_reads(t);
    kp_thread_t *m = started(s, {"instructions:uk"});
    uint64_t v[6], a = 0, b = 0;
    EXPECT_EQ(kp_thread_sample(t, v, n), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_thread_sample(m, &a, 1), KP_OK);
    for (int i = 0; i < 1000; ++i) kp_thread_sample(t, v, n);
    EXPECT_EQ(kp_thread_sample(m, &b, 1), KP_OK);
    kp_thread_free(m);
    kp_thread_free(t);
    return (b - a) / 1000;
}

TEST(UserReads, ASampleCostsAFractionOfARead) {
    KPC_PMU_REQUIRE_GUEST();
    UserAccess ua(1);
    REQUIRE_USER_ACCESS(ua);
    kp_sampler_t *su = sampler(KP_USER_READS_AUTO);
    kp_sampler_t *sr = sampler(KP_USER_READS_OFF);
    for (size_t n : {size_t{1}, size_t{2}, size_t{6}}) {
        int on = -1, off = -1;
        const uint64_t user = instructions_per_sample(su, n, &on);
        const uint64_t sys = instructions_per_sample(sr, n, &off);
        std::printf("instructions per kp_thread_sample of %zu events (user + kernel): user space "
                    "%llu, read() %llu\n",
                    n, (unsigned long long)user, (unsigned long long)sys);
        EXPECT_EQ(on, 1) << n << " events";
        EXPECT_EQ(off, 0) << n << " events";
        EXPECT_GT(user, 10 * n) << n << " events: a counter read is more than 10 instructions";
        EXPECT_LT(user * 5, sys) << n << " events: a user-space sample must not enter the kernel";
    }
    kp_sampler_free(su);
    kp_sampler_free(sr);
}

TEST(UserReads, PerfUserAccessOffFallsBackToReadAndSaysHowToTurnItOn) {
    KPC_PMU_REQUIRE_GUEST();
    UserAccess ua(0);
    REQUIRE_USER_ACCESS(ua);
    const char *fix = "kernel.perf_user_access=0: run `sudo sysctl -w kernel.perf_user_access=1`";
    kp_sampler_t *s = sampler(KP_USER_READS_AUTO);
    EXPECT_EQ(kp_sampler_user_reads(s), 0);
    EXPECT_STREQ(kp_sampler_user_reads_reason(s), fix);
    kp_thread_t *t = started(s, {"cycles", "instructions"});
    EXPECT_EQ(kp_thread_user_reads(t), 0);
    EXPECT_STREQ(kp_thread_user_reads_reason(t), fix);
    EXPECT_GT(exact_offset(t), 0);
    kp_thread_free(t);
    kp_sampler_free(s);
}

TEST(UserReads, ASoftwareEventKeepsTheSetOnRead) {
    KPC_PMU_REQUIRE_GUEST();
    UserAccess ua(1);
    REQUIRE_USER_ACCESS(ua);
    kp_sampler_t *s = sampler(KP_USER_READS_AUTO);
    kp_thread_t *t = started(s, {"instructions", "page-faults"});
    EXPECT_EQ(kp_thread_user_reads(t), 0);
    EXPECT_NE(std::string(kp_thread_user_reads_reason(t)).find("'page-faults' is a software event"),
              std::string::npos)
        << kp_thread_user_reads_reason(t);
    deltas(t, 10, 2);
    const int64_t first = deltas(t, 1000, 2)[0] - 2000;
    EXPECT_GT(first, 0);
    EXPECT_EQ(deltas(t, 100000, 2)[0] - 200000, first);
    kp_thread_free(t);
    kp_sampler_free(s);
}

// Six instruction events fill the 6 event counters; a seventh handle started after them
// finds no counter at its first start and reads with read(). The first handle, rotated
// out by the kernel from then on, falls back per sample and reports KP_EPARTIAL, exactly
// as read() would: never a partial count with KP_OK.
TEST(UserReads, MultiplexedHandlesFallBackAndReportPartial) {
    KPC_PMU_REQUIRE_GUEST();
    UserAccess ua(1);
    REQUIRE_USER_ACCESS(ua);
    kp_sampler_t *s = sampler(KP_USER_READS_AUTO);
    kp_thread_t *full = started(s, {"instructions", "r8", "r10008", "r20008", "r30008", "r40008"});
    ASSERT_EQ(kp_thread_user_reads(full), 1) << kp_thread_user_reads_reason(full);
    kp_thread_t *late = started(s, {"r50008"});
    EXPECT_EQ(kp_thread_user_reads(late), 0);
    EXPECT_EQ(std::string(kp_thread_user_reads_reason(late)).rfind("multiplexed", 0), 0u)
        << kp_thread_user_reads_reason(late);
    kpc_pmu::exact_loop(10000000);  // many rotations
    uint64_t v[6];
    EXPECT_EQ(kp_thread_sample(full, v, 6), KP_EPARTIAL) << kp_error_last_message();
    uint64_t one = 0, en = 0, run = 0;
    uint8_t complete = 1;
    EXPECT_EQ(kp_thread_sample_full(late, &one, &complete, 1, &en, &run), KP_OK);
    EXPECT_EQ(complete, 0);
    EXPECT_LT(run, en);
    kp_thread_free(late);
    kp_thread_free(full);
    kp_sampler_free(s);
}

struct Counted {
    int user_reads = -1;
    int64_t offset = 0, looped = 0;
    int rc = KP_OK;
};

// Out of line, so every call runs the same instructions between its two samples
// (inlined at each call site, the argument's set-up could differ by one).
__attribute__((noinline)) int64_t loop_delta(kp_thread_t *t, uint64_t iterations, int *rc) {
    uint64_t a = 0, b = 0;
    if (int r = kp_thread_sample(t, &a, 1); r != KP_OK) *rc = r;
    kpc_pmu::exact_loop(iterations);
    if (int r = kp_thread_sample(t, &b, 1); r != KP_OK) *rc = r;
    return static_cast<int64_t>(b - a) - 2 * static_cast<int64_t>(iterations);
}

Counted count_loop(kp_sampler_t *s, uint64_t n, const std::atomic<int> &go) {
    Counted c;
    kp_thread_t *t = started(s, {"instructions"});
    if (!t) return c;
    c.user_reads = kp_thread_user_reads(t);
    loop_delta(t, 10, &c.rc);
    c.offset = loop_delta(t, 1000, &c.rc);
    while (go.load() == 0) {
    }
    c.looped = loop_delta(t, n, &c.rc);
    kp_thread_free(t);
    return c;
}

// Three threads loop at once, each read from user space: each reads its own loop exactly,
// though the kernel switches between them (and rewrites each page) many times.
TEST(UserReads, ThreadsReadOnlyTheirOwnCounts) {
    KPC_PMU_REQUIRE_GUEST();
    UserAccess ua(1);
    REQUIRE_USER_ACCESS(ua);
    kp_sampler_t *s = sampler(KP_USER_READS_AUTO);
    constexpr int kThreads = 3;
    const uint64_t n[kThreads] = {3000000, 4000000, 5000000};
    Counted got[kThreads];
    std::atomic<int> go{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&, i] { got[i] = count_loop(s, n[i], go); });
    go.store(1);
    for (auto &th : threads) th.join();
    for (int i = 0; i < kThreads; ++i) {
        std::printf("thread %d: offset %lld, loop %lld over 2n\n", i, (long long)got[i].offset,
                    (long long)got[i].looped);
        EXPECT_EQ(got[i].rc, KP_OK) << "thread " << i;
        EXPECT_EQ(got[i].user_reads, 1) << "thread " << i;
        EXPECT_GT(got[i].offset, 0) << "thread " << i;
        EXPECT_EQ(got[i].looped, got[i].offset) << "thread " << i;
    }
    kp_sampler_free(s);
}

bool pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0;
}

// Moved from CPU to CPU between samples, the thread's counts follow it: each page is
// rewritten for the new CPU's counter. With more than one vCPU QEMU's -icount is not exact
// (the vCPUs take turns), so the bounds allow a little more than the loop.
TEST(UserReads, AThreadMovedBetweenCpusKeepsItsCounts) {
    KPC_PMU_REQUIRE_GUEST();
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2)
        GTEST_SKIP() << "the guest has " << cpus
                     << " CPU: moving a thread needs two (scripts/ci/pmu-guest.sh runs this test "
                        "again in a short second boot with 2 vCPUs)";
    UserAccess ua(1);
    REQUIRE_USER_ACCESS(ua);
    ASSERT_TRUE(pin(0));
    kp_sampler_t *s = sampler(KP_USER_READS_AUTO);
    kp_thread_t *t = started(s, {"instructions"});
    ASSERT_EQ(kp_thread_user_reads(t), 1) << kp_thread_user_reads_reason(t);
    constexpr uint64_t kN = 1000000;
    uint64_t prev = 0;
    ASSERT_EQ(kp_thread_sample(t, &prev, 1), KP_OK);
    for (int round = 0; round < 6; ++round) {
        ASSERT_TRUE(pin(round % 2 == 0 ? 1 : 0));
        kpc_pmu::exact_loop(kN);
        uint64_t now = 0;
        ASSERT_EQ(kp_thread_sample(t, &now, 1), KP_OK) << kp_error_last_message();
        const uint64_t d = now - prev;
        std::printf("round %d on CPU %d: %llu instructions\n", round, sched_getcpu(), (unsigned long long)d);
        EXPECT_GE(d, 2 * kN);
        EXPECT_LT(d, 2 * kN + 200000) << "round " << round;
        prev = now;
    }
    pin(0);
    kp_thread_free(t);
    kp_sampler_free(s);
}

}  // namespace
