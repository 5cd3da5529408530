#include "backends/recount/thread_counters.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"

namespace kpc::recount {

RecountThreadCounters::RecountThreadCounters(SelfCounts selfcounts, apple::MachTimebase timebase,
                                             ThreadLayout layout,
                                             const std::vector<const EventSpec *> &events)
    : selfcounts_(selfcounts), timebase_(timebase), kind_(layout.kind()),
      bytes_(layout.words() * sizeof(uint64_t)), n_(events.size()) {
    if (n_ == 0 || n_ > kMaxEvents)
        fail(KP_ERROR, "recount: internal error: " + std::to_string(n_) +
                           " events for one kp_thread_t; please report this");
    for (size_t i = 0; i < n_; ++i) {
        slots_[i] = thread_slots(*events[i], layout);
        time_[i] = is_time(events[i]->quantity);
    }
}

int RecountThreadCounters::fetch() noexcept {
    std::memset(buf_, 0, bytes_);
    return selfcounts_(kind_, buf_, bytes_) == 0 ? 0 : errno;
}

int RecountThreadCounters::read_error(int err) const noexcept {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "recount: thread_selfcounts(kind %u) failed: the kernel refused the read "
                  "[errno %d: %s]",
                  kind_, err, std::strerror(err));
    return record_error(KP_EKERNEL, msg, err);
}

void RecountThreadCounters::start() {
    if (running_) return;
    if (int err = fetch())
        fail(KP_EKERNEL, "recount: thread_selfcounts(kind " + std::to_string(kind_) +
                             ") failed when starting: " + errno_text(err), err);
    for (size_t i = 0; i < n_; ++i) offset_[i] = total_[i] - raw(i);
    running_ = true;
}

void RecountThreadCounters::stop() {
    if (!running_) return;
    running_ = false;
    if (int err = fetch())
        fail(KP_EKERNEL, "recount: thread_selfcounts(kind " + std::to_string(kind_) +
                             ") failed when stopping: " + errno_text(err), err);
    for (size_t i = 0; i < n_; ++i) total_[i] = offset_[i] + raw(i);
}

int RecountThreadCounters::read(uint64_t *values, uint8_t *complete, uint64_t *enabled_ns,
                                uint64_t *running_ns) noexcept {
    return read_never_multiplexed(*this, n_, values, complete, enabled_ns, running_ns);
}

int RecountThreadCounters::read_values(uint64_t *values) noexcept {
    if (__builtin_expect(!running_, 0)) {
        for (size_t i = 0; i < n_; ++i) values[i] = scaled(i, total_[i]);
        return KP_OK;
    }
    if (int err = fetch()) return read_error(err);
    for (size_t i = 0; i < n_; ++i) values[i] = scaled(i, offset_[i] + raw(i));
    return KP_OK;
}

}  // namespace kpc::recount
