// The copy that ends every kperf thread read: values[i] = buf[index[i]] + offset[i], from
// the kernel's counter buffer (in its slot order) to the user's values (in event order).
// One routine per event count, chosen when the handle is created, so the hot path reaches
// a straight-line copy for its exact count through one indirect jump and no loop. SIMD
// versions: on x86-64 CPUs with AVX2 the routines copy four events per gather; on AArch64
// (NEON is part of the architecture) two events per TBL byte shuffle of the buffer, with
// the shuffle's byte indices computed when the routine is chosen.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kpc/kperf_raw.h"

#if defined(__aarch64__) && defined(__GNUC__)  // GCC and Clang (Apple clang included)
#define KPC_HAVE_NEON_COPY 1
#else
#define KPC_HAVE_NEON_COPY 0
#endif

namespace kpc::kperf {

#if KPC_HAVE_NEON_COPY
// The NEON copies reach slots 0..9 of buf, the 10 counters of Apple's chips (2 fixed, 8
// configurable); an event at a higher slot gets the portable copy (counter_copy.cpp).
inline constexpr size_t kNeonSlots = 10;
#endif

// What a copy reads and writes. Starts with the framework's output buffer so that, in
// KperfThreadCounters, the buffer's address also reaches everything else.
struct CopyBlock {
    uint64_t buf[KP_KPC_MAX_COUNTERS] = {};     // kpc_get_thread_counters output
    uint64_t offset[KP_KPC_MAX_COUNTERS] = {};  // per event: added to its slot's count
    uint32_t index[KP_KPC_MAX_COUNTERS] = {};   // per event: its slot in buf
    uint64_t *out = nullptr;                    // the values being written
#if KPC_HAVE_NEON_COPY
    // AArch64 only, read by the NEON copies and written by select_copy from `index`: for
    // each pair of events (2p, 2p+1) the 16 byte indices of its TBL over four rows of buf
    // (16 bytes, 2 slots each), and when all five rows of slots 0..9 are in use, of its
    // TBX over the fifth, at [p] or [2p] and [2p + 1]; 0xff for a byte from elsewhere
    // (TBL writes 0, TBX keeps the byte).
    alignas(16) uint8_t shuffle[KP_KPC_MAX_COUNTERS / 2 * 2][16] = {};
#endif
};

// Copies the block's events to block->out; returns KP_OK. No allocation, no branch.
using CopyFn = int (*)(const CopyBlock *block) noexcept;

// The copy for `events` events (1..KP_KPC_MAX_COUNTERS; anything else returns nullptr)
// whose slots are block.index[0..events), which must be set first. With `simd` true:
// on x86-64 (GCC or Clang) the AVX2 copy, for 4 events and more; on AArch64 the NEON copy
// wherever it takes fewer instructions than the portable one for this count and these
// slots, in which case its shuffle tables are written into `block` here (so choose again
// if the indices change). Otherwise, and on other targets, the portable copy. Never
// allocates; the returned routine reads only `block`'s members and writes block.out.
CopyFn select_copy(CopyBlock &block, size_t events, bool simd) noexcept;

// True when this build has SIMD copies and the machine can run them: AVX2 on x86-64 (CPU
// and OS checked), always on AArch64 (NEON is mandatory there); false elsewhere.
bool simd_copy_available() noexcept;

}  // namespace kpc::kperf
