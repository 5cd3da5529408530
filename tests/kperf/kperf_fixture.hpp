// Shared helpers for the kperf backend tests: samplers on the simulator, RAII handles,
// a little CPU work, and a fixture that proves each test leaves the simulated kernel and
// the kpep object counts as it found them.
#pragma once

#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <kpc/kperf_raw.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kpsim.h"

namespace kperf_test {

inline const char *kperf_path() { return KPSIM_TEST_KPERF; }
inline const char *kperfdata_path() { return KPSIM_TEST_KPERFDATA; }

struct SamplerFree {
    void operator()(kp_sampler_t *s) const { kp_sampler_free(s); }
};
struct ThreadFree {
    void operator()(kp_thread_t *t) const { kp_thread_free(t); }
};
using Sampler = std::unique_ptr<kp_sampler_t, SamplerFree>;
using Thread = std::unique_ptr<kp_thread_t, ThreadFree>;

// kp_sampler_new on the kperf backend with explicit simulator paths.
inline int new_sampler(Sampler *out, const char *kperf = kperf_path(),
                       const char *kperfdata = kperfdata_path()) {
    kp_sampler_options_t opts;
    kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
    opts.backend = KP_BACKEND_KPERF;
    opts.kperf_path = kperf;
    opts.kperfdata_path = kperfdata;
    kp_sampler_t *s = nullptr;
    int rc = kp_sampler_new(&s, &opts);
    out->reset(s);
    return rc;
}

inline Sampler must_sampler() {
    Sampler s;
    int rc = new_sampler(&s);
    EXPECT_EQ(rc, KP_OK) << kp_error_last_message();
    return s;
}

inline int new_thread(Thread *out, kp_sampler_t *s, const std::vector<const char *> &names) {
    kp_thread_t *t = nullptr;
    int rc = kp_thread_new(&t, s, names.data(), names.size());
    out->reset(t);
    return rc;
}

// CPU work the simulator turns into counts; `units` scales it.
inline uint64_t burn(int units) {
    volatile uint64_t x = 1;
    for (int u = 0; u < units; ++u)
        for (int i = 0; i < 200000; ++i) x = x * 2862933555777941757ull + 3037000493ull;
    return x;
}

inline std::string last_message() { return kp_error_last_message(); }

inline kpsim_kernel_state kernel_state() {
    kpsim_kernel_state st{};
    kpsim_kernel_get_state(&st);
    return st;
}

// What "left as it was" means: the counting switches, the Power-Manager grant and the
// configuration registers (thread buffers and the call counter only ever grow).
inline void expect_same_kernel(const kpsim_kernel_state &a, const kpsim_kernel_state &b,
                               const std::string &where) {
    EXPECT_EQ(a.counting, b.counting) << where;
    EXPECT_EQ(a.thread_counting, b.thread_counting) << where;
    EXPECT_EQ(a.force_all_ctrs, b.force_all_ctrs) << where;
    EXPECT_EQ(a.force_owner, b.force_owner) << where;
    EXPECT_EQ(a.config_words, b.config_words) << where;
    for (int i = 0; i < 8; ++i) EXPECT_EQ(a.config[i], b.config[i]) << where << " config[" << i << "]";
}

// Boots the simulator as a root process on `chip` and checks at the end that the test
// freed every kpep object and restored the kernel.
class KperfTest : public ::testing::Test {
protected:
    virtual const char *chip() const { return "a14"; }
    void SetUp() override {
        kpsim_reset();
        kpsim_clear_faults();
        kpsim_data_reset();
        kpsim_data_clear_faults();
        ASSERT_EQ(kpsim_set_chip(chip()), 0) << chip();
        boot_ = kernel_state();
        dbs_ = kpsim_data_live_dbs();
        configs_ = kpsim_data_live_configs();
    }
    void TearDown() override {
        kpsim_clear_faults();
        kpsim_data_clear_faults();
        expect_same_kernel(boot_, kernel_state(), "kernel state at the end of the test");
        EXPECT_EQ(kpsim_data_live_dbs(), dbs_) << "kpep_db objects leaked";
        EXPECT_EQ(kpsim_data_live_configs(), configs_) << "kpep_config objects leaked";
    }
    kpsim_kernel_state boot_{};
    size_t dbs_ = 0, configs_ = 0;
};

}  // namespace kperf_test
