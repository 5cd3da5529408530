#include "backends/recount/recount_events.hpp"

#include <cstring>
#include <iterator>

#include "backends/recount/recount_abi.hpp"

namespace kpc::recount {
namespace {

using Q = Quantity;
using L = Level;

constexpr EventSpec kEvents[] = {
    {"cycles", Q::cycles, L::all, "Core clock cycles of the thread, in user and kernel mode"},
    {"instructions", Q::instructions, L::all, "Instructions retired by the thread, in user and kernel mode"},
    {"p-cycles", Q::cycles, L::performance, "Cycles on performance cores (perf level 0)"},
    {"e-cycles", Q::cycles, L::efficiency, "Cycles on efficiency cores (perf level 1)"},
    {"p-instructions", Q::instructions, L::performance, "Instructions retired on performance cores (perf level 0)"},
    {"e-instructions", Q::instructions, L::efficiency, "Instructions retired on efficiency cores (perf level 1)"},
    {"task-clock", Q::cpu_time, L::all, "CPU time of the thread, in nanoseconds"},
    {"user-time", Q::user_time, L::all, "CPU time of the thread in user mode, in nanoseconds (the kernel's recount, read with thread_selfcounts)"},
    {"system-time", Q::system_time, L::all, "CPU time of the thread in kernel mode, in nanoseconds (the kernel's recount, read with thread_selfcounts)"},
};

}  // namespace

const EventSpec *recount_events(size_t *count) {
    *count = std::size(kEvents);
    return kEvents;
}

const EventSpec *find_recount_event(const char *name) {
    for (const EventSpec &e : kEvents)
        if (!std::strcmp(e.name, name)) return &e;
    return nullptr;
}

Slots thread_slots(const EventSpec &e, const ThreadLayout &layout) {
    Slots slots;
    slots.fill(kZeroSlot);
    // Which array entries hold the level: both for the total (a missing entry reads 0),
    // both for P on a one-level machine (13.0-14.1 copy two entries whatever the machine).
    uint8_t entries[2] = {0, 1};
    size_t n_entries = layout.per_level ? 2 : 1;
    const bool one_level = layout.levels < 2;
    if (e.level == Level::performance && !one_level) {
        entries[0] = layout.efficiency_first ? 1 : 0;
        n_entries = 1;
    } else if (e.level == Level::efficiency) {
        if (one_level) return slots;  // no efficiency level: always 0
        entries[0] = layout.efficiency_first ? 0 : 1;
        n_entries = 1;
    }
    size_t words[2] = {0, 0}, n_words = 1;
    switch (e.quantity) {
    case Quantity::instructions: words[0] = kWordInstructions; break;
    case Quantity::cycles: words[0] = kWordCycles; break;
    case Quantity::user_time: words[0] = kWordUserTime; break;
    case Quantity::system_time: words[0] = kWordSystemTime; break;
    case Quantity::cpu_time: words[0] = kWordUserTime, words[1] = kWordSystemTime, n_words = 2; break;
    }
    size_t k = 0;
    for (size_t i = 0; i < n_entries; ++i)
        for (size_t w = 0; w < n_words; ++w)
            slots[k++] = static_cast<uint8_t>(entries[i] * layout.stride() + words[w]);
    return slots;
}

}  // namespace kpc::recount
