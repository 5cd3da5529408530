// The copy that ends every kperf thread read: values[i] = buf[index[i]] + offset[i], from
// the kernel's counter buffer (in its slot order) to the user's values (in event order).
// One routine per event count, chosen when the handle is created, so the hot path reaches
// a straight-line copy for its exact count through one indirect jump and no loop; on
// x86-64 CPUs with AVX2 the routines copy four events per gather.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kpc/kperf_raw.h"

namespace kpc::kperf {

// What a copy reads and writes. Starts with the framework's output buffer so that, in
// KperfThreadCounters, the buffer's address also reaches everything else.
struct CopyBlock {
    uint64_t buf[KP_KPC_MAX_COUNTERS] = {};     // kpc_get_thread_counters output
    uint64_t offset[KP_KPC_MAX_COUNTERS] = {};  // per event: added to its slot's count
    uint32_t index[KP_KPC_MAX_COUNTERS] = {};   // per event: its slot in buf
    uint64_t *out = nullptr;                    // the values being written
};

// Copies the block's events to block->out; returns KP_OK. No allocation, no branch.
using CopyFn = int (*)(const CopyBlock *block) noexcept;

// The copy for `events` events (1..KP_KPC_MAX_COUNTERS; anything else returns nullptr):
// the AVX2 one when `avx2` is true and the build has one (x86-64, GCC or Clang), else
// the portable one.
CopyFn select_copy(size_t events, bool avx2) noexcept;

// True when this build has AVX2 copies and the CPU (and OS) can run them.
bool avx2_copy_available() noexcept;

}  // namespace kpc::kperf
