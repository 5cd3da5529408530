// Software events against the real kernel: each test checks a fact the kernel must uphold.
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <time.h>

#include <atomic>
#include <thread>
#include <vector>

#include "common/workload.hpp"

namespace {

class KernelTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message(); }
    void TearDown() override { kp_sampler_free(s); }
    kp_thread_t *open(std::vector<const char *> names) {
        kp_thread_t *t = nullptr;
        EXPECT_EQ(kp_thread_new(&t, s, names.data(), names.size()), KP_OK) << kp_error_last_message();
        return t;
    }
    kp_sampler_t *s = nullptr;
};

uint64_t thread_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// Spins until this thread has used `ns` of CPU time.
void busy_for(uint64_t ns) {
    uint64_t end = thread_cpu_ns() + ns;
    volatile uint64_t x = 0;
    while (thread_cpu_ns() < end)
        for (int i = 0; i < 1000; ++i) x = x + i;
}

void fault_pages(size_t pages) { ASSERT_TRUE(kpc_test::touch_fresh_pages(pages)); }

}  // namespace

TEST_F(KernelTest, TouchingFreshPagesRaisesPageFaultsByAtLeastN) {
    kp_thread_t *t = open({"page-faults", "minor-faults"});
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    uint64_t before[2], after[2];
    ASSERT_EQ(kp_thread_sample(t, before, 2), KP_OK);
    const size_t n = 1000;
    fault_pages(n);
    ASSERT_EQ(kp_thread_sample(t, after, 2), KP_OK);
    // Each page faults once; mmap and the sample calls add a few. A fault counted twice
    // gives 2n. Under ThreadSanitizer each fresh page also faults in its shadow memory
    // (about 3n in all, measured), and a double count gives about 6n.
#if defined(__SANITIZE_THREAD__)
    const size_t most = 4 * n;
#else
    const size_t most = n + n / 2;
#endif
    for (int i = 0; i < 2; ++i) {
        EXPECT_GE(after[i] - before[i], n) << "event " << i;
        EXPECT_LT(after[i] - before[i], most) << "event " << i;
    }
    kp_thread_free(t);
}

TEST_F(KernelTest, FiftyMillisecondsOfBusyWorkRaisesTaskClockByItsCpuTime) {
    kp_thread_t *t = open({"task-clock"});
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    uint64_t before = 0, after = 0;
    const uint64_t cpu0 = thread_cpu_ns();
    ASSERT_EQ(kp_thread_sample(t, &before, 1), KP_OK);
    busy_for(50 * 1000000ull);  // 50 ms of this thread's own CPU time
    ASSERT_EQ(kp_thread_sample(t, &after, 1), KP_OK);
    const uint64_t cpu = thread_cpu_ns() - cpu0;
    // tests/README.md: task-clock is not the thread's CPU clock (the VM's host, the switch
    // path), so 90% below, 10% + 20 ms above. The same time counted twice is 2x.
    EXPECT_GE(after - before, cpu * 9 / 10) << "thread CPU time " << cpu << " ns";
    EXPECT_LE(after - before, cpu + cpu / 10 + 20 * 1000000ull) << "thread CPU time " << cpu << " ns";
    kp_thread_free(t);
}

TEST_F(KernelTest, TotalsNeverDecrease) {
    kp_thread_t *t = open({"task-clock", "page-faults", "context-switches", "cpu-clock"});
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    uint64_t prev[4] = {0, 0, 0, 0}, cur[4];
    for (int round = 0; round < 200; ++round) {
        if (round % 10 == 0) fault_pages(4);
        if (round % 50 == 0) std::this_thread::yield();
        ASSERT_EQ(kp_thread_sample(t, cur, 4), KP_OK);
        for (int i = 0; i < 4; ++i) EXPECT_GE(cur[i], prev[i]) << "event " << i << " round " << round;
        std::copy(cur, cur + 4, prev);
    }
    EXPECT_GT(prev[0], 0u);
    kp_thread_free(t);
}

TEST_F(KernelTest, WorkOnThreadBDoesNotShowInThreadA) {
    kp_thread_t *a = open({"page-faults", "task-clock"});
    ASSERT_EQ(kp_thread_start(a), KP_OK);
    uint64_t a0[2], a1[2];
    ASSERT_EQ(kp_thread_sample(a, a0, 2), KP_OK);

    uint64_t b_faults = 0, b_clock = 0;
    std::thread([&] {
        kp_thread_t *b = open({"page-faults", "task-clock"});
        ASSERT_EQ(kp_thread_start(b), KP_OK);
        uint64_t b0[2], b1[2];
        ASSERT_EQ(kp_thread_sample(b, b0, 2), KP_OK);
        fault_pages(4000);
        busy_for(30 * 1000000ull);
        ASSERT_EQ(kp_thread_sample(b, b1, 2), KP_OK);
        b_faults = b1[0] - b0[0];
        b_clock = b1[1] - b0[1];
        kp_thread_free(b);
    }).join();

    ASSERT_EQ(kp_thread_sample(a, a1, 2), KP_OK);
    EXPECT_GE(b_faults, 4000u);
    EXPECT_GE(b_clock, 25 * 1000000ull);
    // Thread A only created and joined a thread meanwhile: far fewer faults and far less
    // CPU time than B's work.
    EXPECT_LT(a1[0] - a0[0], b_faults / 4);
    EXPECT_LT(a1[1] - a0[1], b_clock / 2);
    kp_thread_free(a);
}

TEST_F(KernelTest, EightThreadsCountIndependently) {
    const int n = 8;
    std::vector<uint64_t> faults(n, 0);
    std::vector<std::thread> workers;
    std::atomic<int> failures{0};
    for (int i = 0; i < n; ++i) {
        workers.emplace_back([&, i] {
            const char *names[] = {"page-faults"};
            kp_thread_t *t = nullptr;
            if (kp_thread_new(&t, s, names, 1) != KP_OK || kp_thread_start(t) != KP_OK) {
                ++failures;
                kp_thread_free(t);
                return;
            }
            uint64_t before = 0, after = 0;
            kp_thread_sample(t, &before, 1);
            fault_pages(200 * (i + 1));  // thread i does (i+1) units of work
            kp_thread_sample(t, &after, 1);
            faults[i] = after - before;
            kp_thread_free(t);
        });
    }
    for (auto &w : workers) w.join();
    ASSERT_EQ(failures.load(), 0);
    for (int i = 0; i < n; ++i) EXPECT_GE(faults[i], 200u * (i + 1)) << "thread " << i;
    // No thread saw the others' work: thread 7 did 8x thread 0's, and its count shows it.
    // Shared or process-wide counts would be about equal. (Ratios, not absolute bounds:
    // under a sanitizer each page also faults in its shadow memory.)
    EXPECT_GT(faults[7], 4 * faults[0]);
    EXPECT_GT(faults[4], 2 * faults[0]);
}
