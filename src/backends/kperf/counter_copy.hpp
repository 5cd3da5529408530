// The copy that ends every kperf thread read: values[i] = buf[index[i]] + offset[i], from
// the kernel's counter buffer (in its slot order) to the user's values (in event order).
// A plain loop: the framework call before it costs thousands of instructions in the
// kernel, so a faster copy would not show (docs/performance.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kpc/kperf_raw.h"

namespace kpc::kperf {

// What the copy reads.
struct CopyBlock {
    uint64_t buf[KP_KPC_MAX_COUNTERS] = {};     // kpc_get_thread_counters output
    uint64_t offset[KP_KPC_MAX_COUNTERS] = {};  // per event: added to its slot's count
    uint32_t index[KP_KPC_MAX_COUNTERS] = {};   // per event: its slot in buf
};

// Writes values[0..events); the sums wrap mod 2^64 (offsets are differences of totals).
// `events` must be at most KP_KPC_MAX_COUNTERS. No allocation.
inline void copy_counters(const CopyBlock &block, size_t events, uint64_t *values) noexcept {
    for (size_t i = 0; i < events; ++i) values[i] = block.buf[block.index[i]] + block.offset[i];
}

}  // namespace kpc::kperf
