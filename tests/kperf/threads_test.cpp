// Eight threads, each with its own kp_thread_t, counting at the same time: counts are
// per thread (isolated) and grow with each thread's own work. Run under TSan by the lead.
#include <atomic>
#include <thread>
#include <vector>

#include "kperf_fixture.hpp"

namespace kperf_test {
namespace {

using Threads = KperfTest;

struct Result {
    int rc_new = -100, rc_start = -100, rc_sample = -100, rc_stop = -100;
    uint64_t idle[3] = {}, busy[3] = {};
    std::string error;
};

TEST_F(Threads, EightThreadsCountTheirOwnWork) {
    constexpr int kThreads = 8;
    Sampler s = must_sampler();
    ASSERT_TRUE(s);
    std::vector<Result> results(kThreads);
    std::atomic<int> ready{0};
    std::vector<std::thread> pool;
    for (int i = 0; i < kThreads; ++i) {
        pool.emplace_back([&, i] {
            Result &r = results[i];
            const char *names[] = {"instructions", "cycles", "branches"};
            kp_thread_t *t = nullptr;
            r.rc_new = kp_thread_new(&t, s.get(), names, 3);
            if (r.rc_new != KP_OK) {
                r.error = kp_error_last_message();
                ready.fetch_add(1);
                return;
            }
            r.rc_start = kp_thread_start(t);
            // Everyone starts the measured work together, so threads really overlap.
            ready.fetch_add(1);
            while (ready.load() < kThreads) std::this_thread::yield();
            uint64_t base[3] = {};  // after the wait: spinning is work too
            kp_thread_sample(t, base, 3);
            burn(2 * (i + 1));  // thread i does (i+1) units of work
            uint64_t after[3] = {};
            r.rc_sample = kp_thread_sample(t, after, 3);
            if (r.rc_sample != KP_OK) r.error = kp_error_last_message();
            for (int k = 0; k < 3; ++k) r.busy[k] = after[k] - base[k];
            r.rc_stop = kp_thread_stop(t);
            kp_thread_free(t);
        });
    }
    for (std::thread &th : pool) th.join();

    for (int i = 0; i < kThreads; ++i) {
        SCOPED_TRACE("thread " + std::to_string(i) + " " + results[i].error);
        EXPECT_EQ(results[i].rc_new, KP_OK);
        EXPECT_EQ(results[i].rc_start, KP_OK);
        EXPECT_EQ(results[i].rc_sample, KP_OK);
        EXPECT_EQ(results[i].rc_stop, KP_OK);
        for (int k = 0; k < 3; ++k) EXPECT_GT(results[i].busy[k], 0u) << "event " << k;
    }
    // Isolation: thread 7 did 8x thread 0's work. Were the counts shared or global, every
    // thread would see about the same totals.
    for (int k = 0; k < 3; ++k) {
        EXPECT_GT(results[7].busy[k], 3 * results[0].busy[k]) << "event " << k;
        EXPECT_GT(results[6].busy[k], results[1].busy[k]) << "event " << k;
    }
    EXPECT_EQ(kernel_state().counting, 0u) << "the last stop switched counting off";
}

TEST_F(Threads, HandleIsBoundToItsThread) {
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles"}), KP_OK);
    int rc = -100;
    std::thread other([&] { rc = kp_thread_start(t.get()); });
    other.join();
    EXPECT_EQ(rc, KP_EWRONG_THREAD);
    EXPECT_EQ(kernel_state().counting, 0u);
}

TEST_F(Threads, ConcurrentSamplersAndReleaseAreSafe) {
    // Samplers created, used and released from several threads at once.
    std::vector<std::thread> pool;
    std::atomic<int> failures{0};
    for (int i = 0; i < 4; ++i) {
        pool.emplace_back([&] {
            for (int round = 0; round < 5; ++round) {
                Sampler s;
                if (new_sampler(&s) != KP_OK) {
                    failures.fetch_add(1);
                    continue;
                }
                Thread t;
                const char *names[] = {"cycles", "branches"};
                kp_thread_t *raw = nullptr;
                if (kp_thread_new(&raw, s.get(), names, 2) != KP_OK) {
                    failures.fetch_add(1);
                    continue;
                }
                t.reset(raw);
                uint64_t v[2];
                if (kp_thread_start(t.get()) != KP_OK || kp_thread_sample(t.get(), v, 2) != KP_OK)
                    failures.fetch_add(1);
                if (round % 2) kp_sampler_release(s.get());
            }
        });
    }
    for (std::thread &th : pool) th.join();
    EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace kperf_test
