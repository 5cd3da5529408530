// One kp_thread_t's events on the recount backend: one thread_selfcounts call per sample.
// The kernel keeps running totals of the calling thread since it was created; a handle
// keeps a base taken at start and adds up its started intervals, as the other backends do.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/apple/libsystem.hpp"
#include "backends/recount/recount_abi.hpp"
#include "backends/recount/recount_events.hpp"
#include "core/backend.hpp"
#include "kpc/kperf_raw.h"

namespace kpc::recount {

class RecountThreadCounters final : public ThreadCounters {
public:
    using SelfCounts = int (*)(uint32_t kind, void *dst, size_t size);
    // `events` non-empty, at most KP_KPC_MAX_COUNTERS; `layout` from the events and the OS.
    RecountThreadCounters(SelfCounts selfcounts, apple::MachTimebase timebase, ThreadLayout layout,
                          const std::vector<const EventSpec *> &events);
    void start() override;
    void stop() override;
    int read(uint64_t *values, uint8_t *complete, uint64_t *enabled_ns,
             uint64_t *running_ns) noexcept override;
    int read_values(uint64_t *values) noexcept override;

private:
    static constexpr size_t kMaxEvents = KP_KPC_MAX_COUNTERS;
    // thread_selfcounts into buf_, zeroed first: the kernel copies no more than it has and
    // never rejects a size, so words it leaves alone must read 0. Returns 0 or the errno.
    int fetch() noexcept;
    uint64_t raw(size_t i) const noexcept {
        const Slots &s = slots_[i];
        return buf_[s[0]] + buf_[s[1]] + buf_[s[2]] + buf_[s[3]];
    }
    // Event i's value from its running total (mach ticks for times).
    uint64_t scaled(size_t i, uint64_t v) const noexcept {
        return time_[i] ? ticks_to_ns(v, timebase_) : v;
    }
    int read_error(int err) const noexcept;

    SelfCounts selfcounts_;
    apple::MachTimebase timebase_;
    uint32_t kind_;
    size_t bytes_;
    size_t n_;
    bool running_ = false;
    uint64_t buf_[kBufferWords] = {};  // buf_[kZeroSlot] is never written
    Slots slots_[kMaxEvents];
    bool time_[kMaxEvents] = {};
    uint64_t offset_[kMaxEvents] = {};  // total - base at the last start (mod 2^64)
    uint64_t total_[kMaxEvents] = {};   // over finished intervals
};

}  // namespace kpc::recount
