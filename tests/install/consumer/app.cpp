// Consumer of an installed libkpc through find_package(kpc) and kpc::kpc, compiled as C++
// (the header's extern "C" guards are part of what is tested). Counts task-clock and
// page-faults around touching fresh pages and checks the numbers make sense.
#include <kpc/kpc.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

int fail(const char *what) {
    std::fprintf(stderr, "consumer: %s: %s\n", what, kp_error_last_message());
    return 1;
}

}  // namespace

int main() {
    if (kp_version_number() != KP_VERSION_NUMBER) {
        std::fprintf(stderr, "consumer: header version %d but library version %d\n",
                     KP_VERSION_NUMBER, kp_version_number());
        return 1;
    }
    kp_sampler_options_t opts;
    if (kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION) != KP_OK)
        return fail("kp_sampler_options_init");
    opts.backend = KP_BACKEND_PERF_EVENT;
    kp_sampler_t *s = nullptr;
    if (kp_sampler_new(&s, &opts) != KP_OK) return fail("kp_sampler_new");

    const char *names[] = {"task-clock", "page-faults"};
    kp_thread_t *t = nullptr;
    if (kp_thread_new(&t, s, names, 2) != KP_OK) return fail("kp_thread_new");
    uint64_t before[2], after[2];
    if (kp_thread_start(t) != KP_OK) return fail("kp_thread_start");
    if (kp_thread_sample(t, before, 2) != KP_OK) return fail("kp_thread_sample");

    const size_t pages = 64, page = 4096;
    {
        std::vector<char> touched(pages * page);
        for (size_t i = 0; i < touched.size(); i += page) touched[i] = 1;
        if (kp_thread_sample(t, after, 2) != KP_OK) return fail("kp_thread_sample");
    }
    kp_thread_free(t);
    kp_sampler_free(s);

    const uint64_t clock_ns = after[0] - before[0], faults = after[1] - before[1];
    std::printf("consumer: libkpc %s task-clock %llu ns, page-faults %llu\n",
                kp_version_string(), static_cast<unsigned long long>(clock_ns),
                static_cast<unsigned long long>(faults));
    // vector value-initialises its storage, so each of the fresh pages faults at least once
    // (large allocations come straight from mmap).
    if (clock_ns == 0 || faults < pages) {
        std::fprintf(stderr, "consumer: expected task-clock > 0 and page-faults >= %zu\n", pages);
        return 1;
    }
    return 0;
}
