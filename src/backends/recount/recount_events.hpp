// The events the recount backend counts, and where each one's value lies in the words the
// kernel returns. Pure data and arithmetic, tested for every kind and perf-level order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "backends/apple/event_spec.hpp"

namespace kpc::recount {

using apple::EventSpec;
using apple::Level;
using apple::Quantity;

// Every recount event: the generic names first (cycles, instructions, p-/e- variants,
// task-clock), then the backend's own time events.
const EventSpec *recount_events(size_t *count);
const EventSpec *find_recount_event(const char *name);

// The thread_selfcounts call one kp_thread_t makes: the smallest kind holding its events.
struct ThreadLayout {
    bool per_level = false;         // P/E events: kind 2 or 4
    bool with_times = false;        // time events: kind 3 or 4
    bool efficiency_first = false;  // per-level array in [E, P] order (macOS 13.0-14.1)
    int levels = 2;                 // hw.nperflevels

    uint32_t kind() const { return 1u + (per_level ? 1u : 0u) + (with_times ? 2u : 0u); }
    size_t stride() const { return with_times ? 4 : 2; }  // words per entry
    // Words asked for: 2 entries for per-level kinds (the kernel copies what it has).
    size_t words() const { return stride() * (per_level ? 2 : 1); }
};

// An event's value is the sum of up to four words of the buffer; unused slots name
// kZeroSlot, a word that is always 0. The buffer holds kBufferWords.
constexpr size_t kMaxWords = 8;
constexpr uint8_t kZeroSlot = kMaxWords;
constexpr size_t kBufferWords = kMaxWords + 1;
using Slots = std::array<uint8_t, 4>;
Slots thread_slots(const EventSpec &e, const ThreadLayout &layout);

}  // namespace kpc::recount
