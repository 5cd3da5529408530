// kperf_cost: calls kp_thread_sample N times on the kperf backend, for callgrind to count
// the instructions libkpc spends per sample (driver: kperf_cost.py beside this file).
//
// The backend and framework paths come from the environment (KPC_BACKEND=kperf,
// KPC_KPERF_PATH, KPC_KPERFDATA_PATH: the simulator's libraries on Linux). Usage:
//   kperf_cost --events 2|8 [--samples N]
// It opens one kp_thread_t with the chosen event set, starts it, samples a few times
// outside the measured region (lazy symbol binding and the first read's lazy-EINVAL retry
// are one-off costs, not per-sample ones), then calls kperf_cost_sample_loop(), the only
// function the driver tells callgrind to collect (--toggle-collect). Heap allocations made
// during that loop are counted with tests/alloc's replacement allocator.
//
// Prints one line "events=K samples=N allocations=A" and exits 0; 1 if a call failed.
#include <kpc/kpc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "alloc_counter.hpp"

namespace {

// Two sets that fit the A14/M1 counters: the fixed pair, and the fixed pair plus six
// configurable events whose counters_mask allows a placement (see
// tests/kperf/placement_test.cpp, AllTenCountersCanBeFilled).
const char *const kTwo[] = {"cycles", "instructions"};
const char *const kEight[] = {"cycles",           "instructions",      "branches",
                              "branch-misses",    "L1D_CACHE_MISS_LD", "L1D_CACHE_MISS_ST",
                              "L1D_TLB_MISS",     "MAP_STALL"};

int die(const char *what, int rc) {
    std::fprintf(stderr, "kperf_cost: %s failed: %s (%s)\n", what, kp_strerror(rc),
                 kp_error_last_message());
    return 1;
}

// Outside the measured region (callgrind collects only inside kperf_cost_sample_loop).
int warm_up(kp_thread_t *t, uint64_t *values, size_t count) {
    for (int i = 0; i < 4; ++i) {
        int rc = kp_thread_sample(t, values, count);
        if (rc != KP_OK) return rc;
    }
    return KP_OK;
}

}  // namespace

// The measured region. extern "C" and noinline so callgrind finds it by this exact name.
// Returns the first failing status, or KP_OK.
extern "C" __attribute__((noinline)) int kperf_cost_sample_loop(kp_thread_t *t, uint64_t *values,
                                                                size_t count, long samples) {
    int first_error = KP_OK;
    for (long i = 0; i < samples; ++i) {
        int rc = kp_thread_sample(t, values, count);
        if (rc != KP_OK && first_error == KP_OK) first_error = rc;
    }
    return first_error;
}

int main(int argc, char **argv) {
    int events = 2;
    long samples = 1000;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--events") && i + 1 < argc) {
            events = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--samples") && i + 1 < argc) {
            samples = std::atol(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: kperf_cost --events 2|8 [--samples N]\n");
            return 2;
        }
    }
    if ((events != 2 && events != 8) || samples < 1) {
        std::fprintf(stderr, "kperf_cost: --events takes 2 or 8, --samples a positive count\n");
        return 2;
    }
    const char *const *names = events == 2 ? kTwo : kEight;

    kp_sampler_t *s = nullptr;
    int rc = kp_sampler_new(&s, nullptr);  // backend and paths from the environment
    if (rc != KP_OK) return die("kp_sampler_new", rc);
    if (kp_sampler_backend(s) != KP_BACKEND_KPERF) {
        std::fprintf(stderr, "kperf_cost: the sampler uses the %s backend; set KPC_BACKEND=kperf\n",
                     kp_sampler_backend_name(s));
        kp_sampler_free(s);
        return 1;
    }
    kp_thread_t *t = nullptr;
    rc = kp_thread_new(&t, s, names, static_cast<size_t>(events));
    if (rc != KP_OK) {
        kp_sampler_free(s);
        return die("kp_thread_new", rc);
    }
    std::vector<uint64_t> values(static_cast<size_t>(events));
    std::vector<uint64_t> before(values.size());
    int status = 0;
    if ((rc = kp_thread_start(t)) != KP_OK) {
        status = die("kp_thread_start", rc);
    } else if ((rc = warm_up(t, before.data(), before.size())) != KP_OK) {
        status = die("kp_thread_sample (warm-up)", rc);
    } else {
        kpc_alloc::begin();
        rc = kperf_cost_sample_loop(t, values.data(), values.size(), samples);
        kpc_alloc::Stats allocs = kpc_alloc::end();
        if (rc != KP_OK) {
            status = die("kp_thread_sample", rc);
        } else {
            // Running totals never go back: a sample that returned KP_OK with garbage
            // would show here.
            for (size_t i = 0; i < values.size(); ++i) {
                if (values[i] < before[i]) {
                    std::fprintf(stderr, "kperf_cost: %s went back from %llu to %llu\n", names[i],
                                 static_cast<unsigned long long>(before[i]),
                                 static_cast<unsigned long long>(values[i]));
                    status = 1;
                }
            }
            std::printf("events=%d samples=%ld allocations=%llu\n", events, samples,
                        static_cast<unsigned long long>(allocs.count));
            if (allocs.count != 0)
                std::printf("heap allocations while sampling: %s\n",
                            kpc_alloc::describe(allocs).c_str());
        }
    }
    kp_thread_free(t);
    kp_sampler_free(s);
    return status;
}
