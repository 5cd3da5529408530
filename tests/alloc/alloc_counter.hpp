// Counts heap allocations made by any code in the process (libkpc.so included) between
// alloc_count_begin() and alloc_count_end().
//
// alloc_counter.cpp defines malloc, calloc, realloc, the aligned allocators and every
// operator new in the executable that links it. The dynamic linker binds the calls made by
// shared libraries (libkpc.so, libstdc++.so) to the executable's definitions first, so
// every allocation is seen; each one is forwarded to the next definition (glibc's, or the
// sanitizer runtime's under ASan).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kpc_alloc {

struct Stats {
    uint64_t count = 0;          // allocation calls while counting
    size_t first_size = 0;       // size asked for by the first of them
    const void *first_caller = nullptr;  // return address of the first allocation call
};

// Reset the counters and start counting allocations from every thread.
void begin() noexcept;
// Stop counting and return what was counted since begin().
Stats end() noexcept;
// "N allocations; first: S bytes from <object>(<symbol>+0xOFF)": for failure messages.
std::string describe(const Stats &s);

}  // namespace kpc_alloc
