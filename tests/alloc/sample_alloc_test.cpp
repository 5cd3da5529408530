// Proves that sampling allocates nothing on the heap (kpc/thread.h promises it): every
// malloc/calloc/realloc/operator new made anywhere in the process while sampling is counted
// by alloc_counter, and the count must be zero. Uses software events on the perf_event
// backend, which every Linux machine has.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstdint>
#include <string>

#include "alloc_counter.hpp"

namespace {

const char *const kSoftwareEvents[] = {"task-clock",     "page-faults",  "context-switches",
                                       "cpu-migrations", "minor-faults", "major-faults"};
constexpr int kSamples = 2000;

class SampleAlloc : public ::testing::Test {
protected:
    void SetUp() override {
        kp_sampler_options_t opts;
        ASSERT_EQ(kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION), KP_OK);
        opts.backend = KP_BACKEND_PERF_EVENT;
        if (kp_sampler_new(&sampler_, &opts) != KP_OK)
            GTEST_SKIP() << "perf_event backend unavailable: " << kp_error_last_message();
    }
    void TearDown() override {
        kp_thread_free(thread_);
        kp_sampler_free(sampler_);
    }
    // Creates and starts a handle with the first n software events; false = skipped.
    bool open(size_t n) {
        int rc = kp_thread_new(&thread_, sampler_, kSoftwareEvents, n);
        if (rc != KP_OK) {
            skip_reason_ = std::string("software events cannot be counted here: ") +
                           kp_error_last_message();
            return false;
        }
        EXPECT_EQ(kp_thread_start(thread_), KP_OK) << kp_error_last_message();
        return true;
    }
    kp_sampler_t *sampler_ = nullptr;
    kp_thread_t *thread_ = nullptr;
    std::string skip_reason_;
};

// Without this the other tests could pass because the counter sees nothing: allocations
// made inside libkpc.so must be counted.
TEST_F(SampleAlloc, CounterSeesAllocationsInsideLibkpc) {
    kpc_alloc::begin();
    kp_thread_t *t = nullptr;
    int rc = kp_thread_new(&t, sampler_, kSoftwareEvents, 2);
    const kpc_alloc::Stats s = kpc_alloc::end();
    if (rc != KP_OK) GTEST_SKIP() << "software events cannot be counted here: " << kp_error_last_message();
    kp_thread_free(t);
    EXPECT_GT(s.count, 0u) << "kp_thread_new allocates (handle, event vector), yet the counter saw "
                              "nothing: the allocator interposition is not working";
}

class SampleAllocN : public SampleAlloc, public ::testing::WithParamInterface<size_t> {};

TEST_P(SampleAllocN, SampleAllocatesNothing) {
    const size_t n = GetParam();
    if (!open(n)) GTEST_SKIP() << skip_reason_;
    uint64_t values[6] = {};
    int bad = KP_OK;
    kpc_alloc::begin();  // from the very first sample after start
    for (int i = 0; i < kSamples; ++i) {
        int rc = kp_thread_sample(thread_, values, n);
        if (rc != KP_OK) bad = rc;
    }
    const kpc_alloc::Stats s = kpc_alloc::end();
    ASSERT_EQ(bad, KP_OK) << kp_error_last_message();
    EXPECT_EQ(s.count, 0u) << kSamples << " kp_thread_sample calls with " << n
                           << " events: " << kpc_alloc::describe(s);
}

TEST_P(SampleAllocN, SampleFullAllocatesNothing) {
    const size_t n = GetParam();
    if (!open(n)) GTEST_SKIP() << skip_reason_;
    uint64_t values[6] = {}, enabled = 0, running = 0;
    uint8_t complete[6] = {};
    int bad = KP_OK;
    kpc_alloc::begin();
    for (int i = 0; i < kSamples; ++i) {
        // Alternate the optional outputs so both branches of each are covered.
        int rc = i % 2 ? kp_thread_sample_full(thread_, values, complete, n, &enabled, &running)
                       : kp_thread_sample_full(thread_, values, nullptr, n, nullptr, nullptr);
        if (rc != KP_OK) bad = rc;
    }
    const kpc_alloc::Stats s = kpc_alloc::end();
    ASSERT_EQ(bad, KP_OK) << kp_error_last_message();
    EXPECT_EQ(s.count, 0u) << kSamples << " kp_thread_sample_full calls with " << n
                           << " events: " << kpc_alloc::describe(s);
    EXPECT_GT(enabled, 0u) << "the samples did read the group";
}

// Sampling a stopped handle is still the hot path (totals stay readable).
TEST_F(SampleAlloc, SampleWhileStoppedAllocatesNothing) {
    if (!open(3)) GTEST_SKIP() << skip_reason_;
    ASSERT_EQ(kp_thread_stop(thread_), KP_OK) << kp_error_last_message();
    uint64_t values[3];
    int bad = KP_OK;
    kpc_alloc::begin();
    for (int i = 0; i < kSamples; ++i) {
        int rc = kp_thread_sample(thread_, values, 3);
        if (rc != KP_OK) bad = rc;
    }
    const kpc_alloc::Stats s = kpc_alloc::end();
    ASSERT_EQ(bad, KP_OK) << kp_error_last_message();
    EXPECT_EQ(s.count, 0u) << kpc_alloc::describe(s);
}

// A status a sample can return on every call (KP_EPARTIAL on a multiplexed handle,
// KP_EBUFSIZE) records a message: that must not allocate either, not even the first time
// on this thread (the message storage is sized when the handle is created).
TEST_F(SampleAlloc, FailingSampleAllocatesNothing) {
    if (!open(3)) GTEST_SKIP() << skip_reason_;
    uint64_t values[3];
    int bad = KP_OK;
    kpc_alloc::begin();
    for (int i = 0; i < kSamples; ++i) {
        int rc = kp_thread_sample(thread_, values, 2);
        if (rc != KP_EBUFSIZE) bad = rc;
    }
    const kpc_alloc::Stats s = kpc_alloc::end();
    ASSERT_EQ(bad, KP_OK) << "every sample into 2 values of a 3-event handle is KP_EBUFSIZE";
    EXPECT_GT(std::string(kp_error_last_message()).size(), 50u) << "the message was recorded";
    EXPECT_EQ(s.count, 0u) << kpc_alloc::describe(s);
}

INSTANTIATE_TEST_SUITE_P(SoftwareEvents, SampleAllocN, ::testing::Values(1, 3, 6),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                             return std::to_string(info.param) + "events";
                         });

}  // namespace
