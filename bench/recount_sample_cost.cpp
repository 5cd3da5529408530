// recount_sample_cost: what kp_thread_sample costs on the recount backend next to the bare
// thread_selfcounts call it wraps, side by side in one run (docs/performance.md, "recount:
// the cost of a sample").
//
// Usage: recount_sample_cost LIBSYSTEM [--rounds N] [--reads N]
// LIBSYSTEM is the library that exports thread_selfcounts: tests/recount_sim's
// librecount_sim.so on Linux, /usr/lib/libSystem.B.dylib on a Mac. For two event sets (the
// totals, kind 1; P/E and times, kind 4) it reads N times through libkpc and N times with
// the bare call (zeroing the same bytes first, as libkpc must), alternating which goes first
// each round, and prints the median ns per read, the ratio and the heap allocations made
// while sampling (target 0). It asserts nothing about time.
//
// Exit status: 0 done; 1 a call failed; 2 bad usage.
#include <dlfcn.h>
#include <kpc/kpc.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "alloc_counter.hpp"

namespace {

using SelfCounts = int (*)(uint32_t, void *, size_t);

struct EventSet {
    const char *label;
    std::vector<const char *> names;
    uint32_t kind;  // what the backend asks the kernel for with these events
    size_t bytes;
};

double now_ns() {
    return std::chrono::duration<double, std::nano>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: recount_sample_cost LIBSYSTEM [--rounds N] [--reads N]\n");
        return 2;
    }
    const char *lib = argv[1];
    int rounds = 9, reads = 20000;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--reads")) reads = std::atoi(argv[i + 1]);
    }
    if (rounds < 1 || reads < 1) return 2;
    setenv("KPC_BACKEND", "recount", 1);
    setenv("KPC_LIBSYSTEM_PATH", lib, 1);
    void *h = dlopen(lib, RTLD_NOW);
    SelfCounts raw = h ? reinterpret_cast<SelfCounts>(dlsym(h, "thread_selfcounts")) : nullptr;
    if (!raw) {
        std::fprintf(stderr, "recount_sample_cost: no thread_selfcounts in %s\n", lib);
        return 1;
    }
    kp_sampler_t *s = nullptr;
    if (kp_sampler_new(&s, nullptr) != KP_OK) {
        std::fprintf(stderr, "recount_sample_cost: %s\n", kp_error_last_message());
        return 1;
    }
    const EventSet sets[] = {
        {"cycles,instructions", {"cycles", "instructions"}, 1, 16},
        {"p-cycles,e-cycles,task-clock", {"p-cycles", "e-cycles", "task-clock"}, 4, 64},
    };
    std::printf("%-30s %12s %12s %8s %12s\n", "events", "kpc ns/read", "bare ns/read", "ratio",
                "allocations");
    int status = 0;
    for (const EventSet &set : sets) {
        kp_thread_t *t = nullptr;
        if (kp_thread_new(&t, s, set.names.data(), set.names.size()) != KP_OK ||
            kp_thread_start(t) != KP_OK) {
            std::fprintf(stderr, "recount_sample_cost: %s: %s\n", set.label, kp_error_last_message());
            status = 1;
            kp_thread_free(t);
            continue;
        }
        std::vector<uint64_t> values(set.names.size());
        uint64_t buf[8];
        std::vector<double> kpc_ns, bare_ns;
        uint64_t allocations = 0;
        int failures = 0;
        for (int r = 0; r < rounds; ++r) {
            for (int pass = 0; pass < 2; ++pass) {
                const bool kpc_turn = (pass == 0) == (r % 2 == 0);
                const double t0 = now_ns();
                if (kpc_turn) {
                    kpc_alloc::begin();
                    for (int i = 0; i < reads; ++i)
                        failures += kp_thread_sample(t, values.data(), values.size()) != KP_OK;
                    allocations += kpc_alloc::end().count;
                    kpc_ns.push_back((now_ns() - t0) / reads);
                } else {
                    for (int i = 0; i < reads; ++i) {
                        std::memset(buf, 0, set.bytes);
                        failures += raw(set.kind, buf, set.bytes) != 0;
                    }
                    bare_ns.push_back((now_ns() - t0) / reads);
                }
            }
        }
        const double k = median(kpc_ns), b = median(bare_ns);
        std::printf("%-30s %12.1f %12.1f %8.3f %12llu\n", set.label, k, b, k / b,
                    static_cast<unsigned long long>(allocations));
        if (failures) {
            std::fprintf(stderr, "recount_sample_cost: %d reads failed\n", failures);
            status = 1;
        }
        kp_thread_free(t);
    }
    kp_sampler_free(s);
    return status;
}
