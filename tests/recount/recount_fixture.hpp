// Shared set-up of the recount tests: a sampler on the recount backend over the simulated
// libSystem (tests/recount_sim), steered with RCSIM_* variables and rcsim_reset().
#pragma once

#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <stdlib.h>
#include <time.h>

#include <cstdint>
#include <string>
#include <vector>

#include "rcsim.h"

namespace recount_test {

// CPU time of the calling thread, in ns.
inline uint64_t thread_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Burn `ms` milliseconds of this thread's CPU time.
inline void spin_ms(uint64_t ms) {
    const uint64_t end = thread_cpu_ns() + ms * 1000000u;
    volatile uint64_t x = 0;
    while (thread_cpu_ns() < end)
        for (int i = 0; i < 1000; ++i) x = x + static_cast<uint64_t>(i);
}

// The simulator's model (tests/recount_sim/README.md): 3 cycles per ns, 2 instructions per cycle.
constexpr double kCyclesPerNs = 3.0;
constexpr uint64_t kInstructionsPerCycle = 2;

#ifdef KPC_TEST_KPERF
// The kperf backend over tests/kperf_sim, with this simulator as its libSystem (where kperf's
// kpc stat finds each command's own totals), on the default simulated Mac.
inline void use_kperf_over_rcsim() {
    setenv("KPC_BACKEND", "kperf", 1);
    setenv("KPC_KPERF_PATH", KPC_TEST_KPERF, 1);
    setenv("KPC_KPERFDATA_PATH", KPC_TEST_KPERFDATA, 1);
    setenv("KPC_LIBSYSTEM_PATH", KPC_TEST_RCSIM, 1);
    unsetenv("RCSIM_VM");
    rcsim_reset();
}
#endif

class Recount : public ::testing::Test {
protected:
    // Simulator knobs for this test, then a recount sampler over `library`.
    void open(std::vector<std::pair<const char *, const char *>> knobs = {},
              const char *library = KPC_TEST_RCSIM) {
        for (const char *v : {"RCSIM_MACOS", "RCSIM_PERF_LEVELS", "RCSIM_P_SHARE", "RCSIM_VM",
                              "RCSIM_TIMEBASE", "RCSIM_EUID"})
            unsetenv(v);
        for (auto &k : knobs) setenv(k.first, k.second, 1);
        rcsim_reset();
        setenv("KPC_BACKEND", "recount", 1);
        setenv("KPC_LIBSYSTEM_PATH", library, 1);
        ASSERT_EQ(kp_sampler_new(&sampler_, nullptr), KP_OK) << kp_error_last_message();
        ASSERT_EQ(kp_sampler_backend(sampler_), KP_BACKEND_RECOUNT);
    }
    // A started handle for `names`; fails the test if it cannot be made.
    kp_thread_t *thread(std::vector<const char *> names) {
        kp_thread_t *t = nullptr;
        int rc = kp_thread_new(&t, sampler_, names.data(), names.size());
        EXPECT_EQ(rc, KP_OK) << kp_error_last_message();
        if (rc != KP_OK) return nullptr;
        EXPECT_EQ(kp_thread_start(t), KP_OK) << kp_error_last_message();
        threads_.push_back(t);
        return t;
    }
    std::vector<uint64_t> sample(kp_thread_t *t) {
        std::vector<uint64_t> v(kp_thread_event_count(t));
        EXPECT_EQ(kp_thread_sample(t, v.data(), v.size()), KP_OK) << kp_error_last_message();
        return v;
    }
    const kp_event_t *event(const char *name) {
        const kp_event_t *e = nullptr;
        EXPECT_EQ(kp_sampler_event_find(&e, sampler_, name), KP_OK) << kp_error_last_message();
        return e;
    }
    // Frees the handles and the sampler, so that one test can open() another machine.
    void close() {
        for (kp_thread_t *t : threads_) kp_thread_free(t);
        threads_.clear();
        kp_sampler_free(sampler_);
        sampler_ = nullptr;
    }
    void TearDown() override { close(); }
    kp_sampler_t *sampler_ = nullptr;
    std::vector<kp_thread_t *> threads_;
};

}  // namespace recount_test
