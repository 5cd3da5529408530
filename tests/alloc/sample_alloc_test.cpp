// Proves that sampling allocates nothing on the heap (kpc/thread.h promises it): every
// malloc/calloc/realloc/operator new made anywhere in the process while sampling is counted
// by alloc_counter, and the count must be zero. Uses software events on the perf_event
// backend, which every Linux machine has.
#include <errno.h>
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "alloc_counter.hpp"

namespace {

const char *const kSoftwareEvents[] = {"task-clock",     "page-faults",  "context-switches",
                                       "cpu-migrations", "minor-faults", "major-faults"};
const uint64_t kSoftwareConfigs[] = {PERF_COUNT_SW_TASK_CLOCK,     PERF_COUNT_SW_PAGE_FAULTS,
                                      PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS,
                                      PERF_COUNT_SW_PAGE_FAULTS_MIN, PERF_COUNT_SW_PAGE_FAULTS_MAJ};
constexpr int kSamples = 2000;

// Asks the kernel, not libkpc, whether this thread can count the software events above
// (a seccomp filter or perf_event_paranoid 3 forbids it). "" when it can, else the reason.
// Only then is a skip right: a libkpc failure where the kernel counts is a failure.
std::string kernel_cannot_count_software() {
    for (size_t i = 0; i < sizeof kSoftwareConfigs / sizeof kSoftwareConfigs[0]; ++i) {
        perf_event_attr attr;
        std::memset(&attr, 0, sizeof attr);
        attr.type = PERF_TYPE_SOFTWARE;
        attr.size = sizeof attr;
        attr.config = kSoftwareConfigs[i];
        attr.disabled = 1;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
        if (fd < 0)
            return std::string("perf_event_open(") + kSoftwareEvents[i] + "): " + std::strerror(errno);
        close(int(fd));
    }
    return "";
}

class SampleAlloc : public ::testing::Test {
protected:
    void SetUp() override {
        kp_sampler_options_t opts;
        ASSERT_EQ(kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION), KP_OK);
        opts.backend = KP_BACKEND_PERF_EVENT;
        const std::string why = kernel_cannot_count_software();
        if (!why.empty()) GTEST_SKIP() << "software events cannot be counted here: " << why;
        ASSERT_EQ(kp_sampler_new(&sampler_, &opts), KP_OK)
            << "the kernel counts software events, yet: " << kp_error_last_message();
    }
    void TearDown() override {
        kp_thread_free(thread_);
        kp_sampler_free(sampler_);
    }
    // Creates and starts a handle with the first n software events; false = failed (SetUp
    // already skipped where the kernel cannot count them).
    bool open(size_t n) {
        int rc = kp_thread_new(&thread_, sampler_, kSoftwareEvents, n);
        EXPECT_EQ(rc, KP_OK) << "the kernel counts these events, yet: " << kp_error_last_message();
        if (rc != KP_OK) return false;
        EXPECT_EQ(kp_thread_start(thread_), KP_OK) << kp_error_last_message();
        return true;
    }
    kp_sampler_t *sampler_ = nullptr;
    kp_thread_t *thread_ = nullptr;
};

// Without this the other tests could pass because the counter sees nothing: allocations
// made inside libkpc.so must be counted.
TEST_F(SampleAlloc, CounterSeesAllocationsInsideLibkpc) {
    kpc_alloc::begin();
    kp_thread_t *t = nullptr;
    int rc = kp_thread_new(&t, sampler_, kSoftwareEvents, 2);
    const kpc_alloc::Stats s = kpc_alloc::end();
    ASSERT_EQ(rc, KP_OK) << "the kernel counts these events, yet: " << kp_error_last_message();
    kp_thread_free(t);
    EXPECT_GT(s.count, 0u) << "kp_thread_new allocates (handle, event vector), yet the counter saw "
                              "nothing: the allocator interposition is not working";
}

class SampleAllocN : public SampleAlloc, public ::testing::WithParamInterface<size_t> {};

TEST_P(SampleAllocN, SampleAllocatesNothing) {
    const size_t n = GetParam();
    ASSERT_TRUE(open(n));
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
    ASSERT_TRUE(open(n));
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
    ASSERT_TRUE(open(3));
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
    ASSERT_TRUE(open(3));
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
