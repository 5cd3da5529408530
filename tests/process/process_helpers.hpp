// Shared by the process tests: RAII handles over the C API, and the workload command.
#pragma once

#include <dirent.h>
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <memory>
#include <string>
#include <vector>

namespace process_test {

struct SamplerFree {
    void operator()(kp_sampler_t *s) const { kp_sampler_free(s); }
};
struct ProcessFree {
    void operator()(kp_process_t *p) const { kp_process_free(p); }
};
using Sampler = std::unique_ptr<kp_sampler_t, SamplerFree>;
using Process = std::unique_ptr<kp_process_t, ProcessFree>;

inline const char *workload() { return KPC_TEST_WORKLOAD; }

// A sampler on `backend`; fails the test if it cannot be made.
inline Sampler sampler(kp_backend_t backend = KP_BACKEND_PERF_EVENT) {
    kp_sampler_options_t opts;
    kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
    opts.backend = backend;
    kp_sampler_t *s = nullptr;
    EXPECT_EQ(kp_sampler_new(&s, &opts), KP_OK) << kp_error_last_message();
    return Sampler(s);
}

// kp_process_spawn of the workload with `args`.
inline int spawn(Process *out, kp_sampler_t *s, const std::vector<const char *> &events,
                 const std::vector<std::string> &args) {
    std::vector<const char *> argv = {workload()};
    for (const std::string &a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    kp_process_t *p = nullptr;
    int rc = kp_process_spawn(&p, s, events.data(), events.size(), argv.data());
    out->reset(p);
    return rc;
}

inline int attach(Process *out, kp_sampler_t *s, const std::vector<const char *> &events,
                  int32_t pid) {
    kp_process_t *p = nullptr;
    int rc = kp_process_attach(&p, s, events.data(), events.size(), pid);
    out->reset(p);
    return rc;
}

// The totals of every event; fails the test on error.
inline std::vector<uint64_t> read(kp_process_t *p) {
    std::vector<uint64_t> v(kp_process_event_count(p));
    EXPECT_EQ(kp_process_read(p, v.data(), v.size()), KP_OK) << kp_error_last_message();
    return v;
}

// Open descriptors of this process.
inline int open_fds() {
    int n = 0;
    if (DIR *d = opendir("/proc/self/fd")) {
        while (dirent *e = readdir(d))
            if (e->d_name[0] != '.') ++n;
        closedir(d);
    }
    return n - 1;  // the directory's own
}

}  // namespace process_test
