// More events than the emulated PMU's 7 counters (the cycle counter and 6 event counters):
// the kernel multiplexes. Values scaled by time_enabled / time_running must come close to
// the exact truth, and the library's "complete" flags must say which events were
// multiplexed. A group larger than the PMU can never be scheduled: refused or reported,
// never a silent 0.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstdint>
#include <string>
#include <vector>

#include "exact_loop.hpp"
#include "workload_path.hpp"

namespace {

// Long enough to span many multiplexing rotations (the kernel rotates every few ms of
// guest time; 2^shift ns per instruction).
constexpr uint64_t kIterations = 10000000;

// Distinct counters (libkpc refuses one counter listed twice): the arm64 kernel keeps the
// low 16 bits of a raw config, so r10008 is INST_RETIRED again and r10011 CPU_CYCLES.
const char *const kInstructionEvents[] = {"instructions", "r8", "r10008", "r20008", "r30008", "r40008"};
const char *const kCycleEvents[] = {"cycles", "r11", "r10011", "r20011", "r30011", "r40011"};

double scaled(uint64_t v, uint64_t enabled, uint64_t running) {
    return running == 0 ? 0.0 : static_cast<double>(v) * enabled / running;
}

TEST(Multiplexing, SeveralThreadHandlesScaleToTheTruth) {
    KPC_PMU_REQUIRE_GUEST();
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    constexpr int kHandles = 5;  // 10 events on 7 counters
    const char *names[] = {"cycles", "instructions"};
    kp_thread_t *t[kHandles] = {};
    for (auto &h : t) {
        ASSERT_EQ(kp_thread_new(&h, s, names, 2), KP_OK) << kp_error_last_message();
        ASSERT_EQ(kp_thread_start(h), KP_OK) << kp_error_last_message();
    }
    uint64_t a[kHandles][2], b[kHandles][2], ea[kHandles], ra[kHandles], eb[kHandles], rb[kHandles];
    uint8_t ca[kHandles][2], cb[kHandles][2];
    for (int i = 0; i < kHandles; ++i)
        ASSERT_EQ(kp_thread_sample_full(t[i], a[i], ca[i], 2, &ea[i], &ra[i]), KP_OK);
    kpc_pmu::exact_loop(kIterations);
    for (int i = 0; i < kHandles; ++i)
        ASSERT_EQ(kp_thread_sample_full(t[i], b[i], cb[i], 2, &eb[i], &rb[i]), KP_OK);
    const double shift = static_cast<double>(uint64_t(1) << kpc_pmu::icount_shift());
    int multiplexed = 0;
    for (int i = 0; i < kHandles; ++i) {
        const uint64_t enabled = eb[i] - ea[i], running = rb[i] - ra[i];
        std::printf("handle %d: cycles %llu instructions %llu, running %llu of %llu ns, complete %d\n",
                    i, (unsigned long long)(b[i][0] - a[i][0]), (unsigned long long)(b[i][1] - a[i][1]),
                    (unsigned long long)running, (unsigned long long)enabled, cb[i][1]);
        ASSERT_GT(running, 0u) << "handle " << i << " never ran";
        const bool whole = rb[i] == eb[i];
        multiplexed += !whole;
        // The flag covers the handle's life: 1 only if it never lost its counters.
        EXPECT_EQ(cb[i][0], whole ? 1 : 0) << "handle " << i;
        EXPECT_EQ(cb[i][1], whole ? 1 : 0) << "handle " << i;
        const double ins = scaled(b[i][1] - a[i][1], enabled, running);
        EXPECT_NEAR(ins, 2.0 * kIterations, 0.02 * 2.0 * kIterations) << "handle " << i;
        EXPECT_NEAR(scaled(b[i][0] - a[i][0], enabled, running), shift * 2.0 * kIterations,
                    0.02 * shift * 2.0 * kIterations)
            << "handle " << i;
    }
    EXPECT_GT(multiplexed, 0) << "10 events on 7 counters, and none was multiplexed";
    for (auto h : t) kp_thread_free(h);
    kp_sampler_free(s);
}

TEST(Multiplexing, OneProcessWithTwelveEventsScalesToTheTruth) {
    KPC_PMU_REQUIRE_GUEST();
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    const std::string path = kpc_pmu::workload_path();
    const std::string n = std::to_string(kIterations);
    const char *argv[] = {path.c_str(), "loop", n.c_str(), nullptr};
    // The truth: the same static command, one event, never multiplexed.
    const char *one[] = {"instructions"};
    kp_process_t *p = nullptr;
    ASSERT_EQ(kp_process_spawn(&p, s, one, 1, argv), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_process_wait(p, nullptr, nullptr), KP_OK);
    uint64_t truth = 0;
    uint8_t whole = 0;
    ASSERT_EQ(kp_process_read_full(p, &truth, &whole, 1, nullptr, nullptr), KP_OK);
    EXPECT_EQ(whole, 1);
    kp_process_free(p);

    std::vector<const char *> names;
    for (auto e : kInstructionEvents) names.push_back(e);
    for (auto e : kCycleEvents) names.push_back(e);
    const size_t k = names.size();
    ASSERT_EQ(kp_process_spawn(&p, s, names.data(), k, argv), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_process_wait(p, nullptr, nullptr), KP_OK);
    std::vector<uint64_t> v(k), en(k), run(k);
    std::vector<uint8_t> complete(k);
    ASSERT_EQ(kp_process_read_full(p, v.data(), complete.data(), k, en.data(), run.data()), KP_OK);
    const double shift = static_cast<double>(uint64_t(1) << kpc_pmu::icount_shift());
    int multiplexed = 0;
    for (size_t i = 0; i < k; ++i) {
        const double want = (i < k / 2 ? 1.0 : shift) * static_cast<double>(truth);
        std::printf("%-12s %llu, running %llu of %llu ns, complete %d, scaled %.0f (truth %.0f)\n", names[i],
                    (unsigned long long)v[i], (unsigned long long)run[i], (unsigned long long)en[i],
                    complete[i], scaled(v[i], en[i], run[i]), want);
        ASSERT_GT(run[i], 0u) << names[i] << " never ran";
        multiplexed += run[i] != en[i];
        EXPECT_EQ(complete[i], run[i] == en[i] ? 1 : 0) << names[i];
        EXPECT_NEAR(scaled(v[i], en[i], run[i]), want, 0.02 * want) << names[i];
    }
    EXPECT_GT(multiplexed, 0) << "12 events on 7 counters, and none was multiplexed";
    kp_process_free(p);
    kp_sampler_free(s);
}

// 8 hardware events in one group on 7 counters: the kernel can never put the group on
// the PMU. Either libkpc refuses it, or every read says the events did not count.
TEST(Multiplexing, GroupLargerThanThePmuIsRefusedOrReported) {
    KPC_PMU_REQUIRE_GUEST();
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    const char *names[] = {"cycles", "instructions", "r8", "r11", "r10008", "r10011", "r20008", "r20011"};
    kp_thread_t *t = nullptr;
    int rc = kp_thread_new(&t, s, names, 8);
    if (rc == KP_OK) rc = kp_thread_start(t);
    if (rc != KP_OK) {
        std::printf("refused: %s: %s\n", kp_strerror(rc), kp_error_last_message());
        EXPECT_NE(std::string(kp_error_last_message()), "");
    } else {
        uint64_t a[8], b[8], en = 0, run = 0;
        uint8_t complete[8];
        kp_thread_sample(t, a, 8);  // its status is checked on the second sample
        kpc_pmu::exact_loop(100000);
        const int plain = kp_thread_sample(t, b, 8);
        ASSERT_EQ(kp_thread_sample_full(t, b, complete, 8, &en, &run), KP_OK);
        std::printf("accepted: plain sample %d, running %llu of %llu ns, instructions %llu\n", plain,
                    (unsigned long long)run, (unsigned long long)en, (unsigned long long)(b[1] - a[1]));
        for (int i = 0; i < 8; ++i) EXPECT_EQ(complete[i], 0) << names[i];
        // The plain call is what most users read: a group that never ran must not be KP_OK.
        EXPECT_NE(plain, KP_OK) << "kp_thread_sample returned KP_OK for a group that ran "
                                << run << " of " << en << " ns";
    }
    kp_thread_free(t);
    // The same group for a process: refused, or reported not counted (complete 0).
    const std::string path = kpc_pmu::workload_path();
    const char *argv[] = {path.c_str(), "loop", "100000", nullptr};
    kp_process_options_t opts;
    ASSERT_EQ(kp_process_options_init(&opts, KP_PROCESS_OPTIONS_VERSION), KP_OK);
    const int32_t groups[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    opts.groups = groups;
    kp_process_t *p = nullptr;
    rc = kp_process_spawn_ex(&p, s, names, 8, argv, &opts);
    if (rc != KP_OK) {
        std::printf("process group refused: %s: %s\n", kp_strerror(rc), kp_error_last_message());
    } else {
        ASSERT_EQ(kp_process_wait(p, nullptr, nullptr), KP_OK);
        uint64_t v[8];
        uint8_t complete[8];
        ASSERT_EQ(kp_process_read_full(p, v, complete, 8, nullptr, nullptr), KP_OK);
        for (int i = 0; i < 8; ++i) {
            if (v[i] == 0) EXPECT_EQ(complete[i], 0) << names[i] << " reads 0 as if complete";
        }
    }
    kp_process_free(p);
    kp_sampler_free(s);
}

}  // namespace
