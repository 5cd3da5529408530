// kp_process_t on the kperf backend, against the simulator: kpc cannot attach counters to
// another process, so every count is system-wide and says so; reads while counting, pause
// and resume, and the simulated kernel left as found (KperfTest checks it after each test).
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "kperf_fixture.hpp"
#include "sim_rates.hpp"

using namespace kperf_test;

namespace {

struct ProcessFree {
    void operator()(kp_process_t *p) const { kp_process_free(p); }
};
using Process = std::unique_ptr<kp_process_t, ProcessFree>;

class KperfProcess : public KperfTest {};

std::vector<uint64_t> read_all(kp_process_t *p) {
    std::vector<uint64_t> v(kp_process_event_count(p));
    EXPECT_EQ(kp_process_read(p, v.data(), v.size()), KP_OK) << last_message();
    return v;
}

void pause_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

TEST_F(KperfProcess, SpawnedCommandIsCountedSystemWideAndFlagged) {
    Sampler s = must_sampler();
    const char *events[] = {"cycles", "instructions"};
    const char *argv[] = {KPC_TEST_WORKLOAD, "spin", "30", nullptr};
    kp_process_t *raw = nullptr;
    ASSERT_EQ(kp_process_spawn(&raw, s.get(), events, 2, argv), KP_OK) << last_message();
    Process p(raw);
    EXPECT_NE(kernel_state().counting, 0u);  // system-wide counting is on
    int code = -2, sig = -2;
    ASSERT_EQ(kp_process_wait(p.get(), &code, &sig), KP_OK) << last_message();
    EXPECT_EQ(code, 0);
    uint64_t v[2], en[2] = {9, 9}, run[2] = {9, 9};
    uint8_t complete[2] = {9, 9};
    ASSERT_EQ(kp_process_read_full(p.get(), v, complete, 2, en, run), KP_OK) << last_message();
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_GT(v[i], 0u) << i;
        EXPECT_EQ(complete[i], 1) << i;  // Apple counters are never multiplexed
        EXPECT_EQ(en[i], 0u) << i;       // ... and the backend measures no times
        EXPECT_EQ(run[i], 0u) << i;
        EXPECT_EQ(kp_process_event_scope(p.get(), i), KP_PROCESS_SCOPE_SYSTEM) << i;
    }
    p.reset();
    EXPECT_EQ(kernel_state().counting, boot_.counting) << "free left counting on";
}

TEST_F(KperfProcess, AttachReadsWhileCountingAndPauses) {
    Sampler s = must_sampler();
    const char *events[] = {"cycles"};
    kp_process_t *raw = nullptr;
    ASSERT_EQ(kp_process_attach(&raw, s.get(), events, 1, 0), KP_OK) << last_message();
    Process p(raw);
    EXPECT_EQ(kp_process_event_scope(p.get(), 0), KP_PROCESS_SCOPE_SYSTEM);
    const uint64_t a = read_all(p.get())[0];
    pause_ms(20);
    const uint64_t b = read_all(p.get())[0];
    EXPECT_GT(b, a);
    ASSERT_EQ(kp_process_stop(p.get()), KP_OK) << last_message();
    EXPECT_EQ(kernel_state().counting, 0u) << "stopped, yet the kernel still counts";
    const uint64_t c = read_all(p.get())[0];
    pause_ms(20);
    EXPECT_EQ(read_all(p.get())[0], c);
    EXPECT_GE(c, b);
    ASSERT_EQ(kp_process_start(p.get()), KP_OK) << last_message();
    pause_ms(20);
    EXPECT_GT(read_all(p.get())[0], c);
}

TEST_F(KperfProcess, ReleasedSamplerStopsTheCountingAndRefusesReads) {
    Sampler s = must_sampler();
    const char *events[] = {"cycles"};
    kp_process_t *raw = nullptr;
    ASSERT_EQ(kp_process_attach(&raw, s.get(), events, 1, 0), KP_OK) << last_message();
    Process p(raw);
    ASSERT_EQ(kp_sampler_release(s.get()), KP_OK);
    EXPECT_EQ(kernel_state().counting, boot_.counting);
    uint64_t v = 0;
    EXPECT_EQ(kp_process_read(p.get(), &v, 1), KP_ESTATE);
    EXPECT_EQ(kp_process_start(p.get()), KP_ESTATE);
    EXPECT_EQ(kp_process_stop(p.get()), KP_OK);
}

TEST_F(KperfProcess, SystemWideCountsEveryCounterOnEveryCpu) {
    Sampler s = must_sampler();
    const char *events[] = {"cycles", "instructions"};
    kp_process_t *raw = nullptr;
    ASSERT_EQ(kp_process_attach_ex(&raw, s.get(), events, 2, KP_PROCESS_SYSTEM_WIDE, nullptr), KP_OK)
        << last_message();
    Process p(raw);
    EXPECT_NE(kernel_state().counting, 0u);
    EXPECT_EQ(kp_process_pid(p.get()), -1);
    EXPECT_EQ(kp_process_thread_count(p.get()), 0u);  // macOS has no per-thread counts of others
    for (size_t i = 0; i < 2; ++i) EXPECT_EQ(kp_process_event_scope(p.get(), i), KP_PROCESS_SCOPE_SYSTEM) << i;
    const std::vector<uint64_t> a = read_all(p.get());
    pause_ms(20);
    const std::vector<uint64_t> b = read_all(p.get());
    EXPECT_GT(b[0], a[0]);
    EXPECT_GT(b[1], a[1]);
    int code = 0, sig = 0;
    EXPECT_EQ(kp_process_wait(p.get(), &code, &sig), KP_ESTATE);
    p.reset();
    EXPECT_EQ(kernel_state().counting, boot_.counting) << "free left counting on";
}

// Three configurable events beside the fixed two, counted on every CPU: each total is its own
// event's (the simulator's rates), so a permuted slot map in the system-wide read shows.
TEST_F(KperfProcess, SystemWideCountsKeepEachEventInItsPlace) {
    Sampler s = must_sampler();
    const std::vector<const char *> events = {"branch-misses", "cycles", "l1d-load-misses",
                                              "instructions", "branches"};
    kp_process_t *raw = nullptr;
    ASSERT_EQ(kp_process_attach_ex(&raw, s.get(), events.data(), events.size(),
                                   KP_PROCESS_SYSTEM_WIDE, nullptr),
              KP_OK)
        << last_message();
    Process p(raw);
    const std::vector<uint64_t> a = read_all(p.get());
    pause_ms(20);
    const std::vector<uint64_t> b = read_all(p.get());
    expect_sim_rates(events, a.data());
    expect_sim_rates(events, b.data());
}
