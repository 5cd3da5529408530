// libkpc_alloc_preload.so: tests/alloc's counting allocator as an LD_PRELOAD library, with a
// C entry point so that a program in another language (bench/swift_sample_cost) can find it
// with dlsym and count the heap allocations of a loop.
#include <cstdint>

#include "alloc_counter.hpp"

extern "C" __attribute__((visibility("default"))) void kpc_alloc_preload_begin(void) {
    kpc_alloc::begin();
}

// Allocation calls from every thread since kpc_alloc_preload_begin().
extern "C" __attribute__((visibility("default"))) uint64_t kpc_alloc_preload_end(void) {
    return kpc_alloc::end().count;
}
