// Workloads the Linux tests count: small, deterministic, and shared so every area means
// the same thing by "N fresh pages".
#pragma once

#include <sys/mman.h>

#include <cstddef>

namespace kpc_test {

// Maps `pages` fresh anonymous pages and writes one byte to each, so each page faults
// exactly once (no allocator header shares the first page). Returns false if mmap fails.
inline bool touch_fresh_pages(size_t pages) {
    const size_t len = pages * 4096;
    void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    for (size_t i = 0; i < pages; ++i) static_cast<volatile char *>(p)[i * 4096] = 1;
    munmap(p, len);
    return true;
}

}  // namespace kpc_test
