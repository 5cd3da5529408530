// kp_process_spawn on exact counters: a multi-threaded command and one that forks and
// execs. The command's own start-up is subtracted with a run of 0 iterations; what is left
// must be 2 instructions per iteration of every thread and child, each counted once. A
// lost thread or child, or one counted twice, moves the total by 2,000,000.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstdint>
#include <string>

#include "exact_loop.hpp"
#include "workload_path.hpp"

namespace {

constexpr uint64_t kIterations = 1000000;
// What runs besides the loops varies by up to ~40,000 instructions between runs of a
// multi-threaded command (seen in the guest, by perf too); a thread's loop is 2,000,000.
constexpr int64_t kSlack = 100000;

// User-space instructions of `pmu_workload mode k n`, every thread and child.
uint64_t spawned(const char *mode, int k, uint64_t n) {
    kp_sampler_t *s = nullptr;
    EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    const std::string path = kpc_pmu::workload_path();
    const std::string ks = std::to_string(k), ns = std::to_string(n);
    const char *argv[] = {path.c_str(), mode, ks.c_str(), ns.c_str(), nullptr};
    const char *names[] = {"instructions"};
    kp_process_t *p = nullptr;
    uint64_t v = 0;
    EXPECT_EQ(kp_process_spawn(&p, s, names, 1, argv), KP_OK) << kp_error_last_message();
    if (p != nullptr) {
        int code = -1, sig = -1;
        EXPECT_EQ(kp_process_wait(p, &code, &sig), KP_OK);
        EXPECT_EQ(code, 0) << path << " " << mode;
        uint8_t complete = 0;
        EXPECT_EQ(kp_process_read_full(p, &v, &complete, 1, nullptr, nullptr), KP_OK);
        EXPECT_EQ(complete, 1);
    }
    kp_process_free(p);
    kp_sampler_free(s);
    return v;
}

void expect_loops(const char *mode, int k) {
    const int64_t base = static_cast<int64_t>(spawned(mode, k, 0));
    const int64_t work = static_cast<int64_t>(spawned(mode, k, kIterations));
    const int64_t want = 2 * static_cast<int64_t>(kIterations) * k;
    std::printf("%s %d: base %lld, with loops %lld, loops %lld (want %lld)\n", mode, k,
                (long long)base, (long long)work, (long long)(work - base), (long long)want);
    EXPECT_GT(base, 0);
    EXPECT_NEAR(work - base, want, kSlack) << mode << " " << k;
}

TEST(ProcessSpawn, CountsEveryThreadOnce) {
    KPC_PMU_REQUIRE_GUEST();
    expect_loops("threads", 4);
}

TEST(ProcessSpawn, CountsEveryForkedAndExecedChildOnce) {
    KPC_PMU_REQUIRE_GUEST();
    expect_loops("forkexec", 3);
}

}  // namespace
