// One kp_thread_t's events as a single perf_event group on the calling thread, read with
// one read() (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING).
#pragma once

#include <linux/perf_event.h>

#include <string>
#include <vector>

#include "core/backend.hpp"

namespace kpc::perf {

// Largest group a kp_thread_t may hold (kp_thread_new enforces it).
constexpr size_t kMaxGroup = KP_MAX_EVENTS;

// attr for `e`; hardware events count user mode only, matching Apple's kpc (docs/events.md).
perf_event_attr make_attr(const Event &e);
bool is_hardware(const Event &e);
// perf_event_open, retrying software events user-only when the paranoid level forbids
// kernel counting. `cpu` -1: wherever `pid` runs; pid -1 and a cpu: everything on that CPU.
// Returns the fd or -1 with errno set.
int open_event(perf_event_attr attr, int pid, int group_fd, unsigned long flags, int cpu = -1);

// When the kernel refuses member `i` of a group with EINVAL: if an earlier hardware event
// names another PMU (p-cycles with e-cycles on a hybrid CPU), the message that says so;
// else empty. The kernel keeps a group on one hardware PMU.
std::string group_pmu_conflict(const std::vector<const Event *> &events, size_t i);

class EventGroup final : public ThreadCounters {
public:
    explicit EventGroup(const std::vector<const Event *> &events);
    ~EventGroup() override;
    void start() override;
    void stop() override;
    int read(uint64_t *values, uint8_t *complete, uint64_t *enabled_ns,
             uint64_t *running_ns) noexcept override;
    int read_values(uint64_t *values) noexcept override;

private:
    // One read() of the group into buf_; KP_OK or a status after record_error().
    int fill() noexcept;
    // Records KP_EPARTIAL with the times; out of line and cold, off the hot path.
    __attribute__((cold, noinline)) static int partial(uint64_t running_ns,
                                                       uint64_t enabled_ns) noexcept;

    std::vector<int> fds_;
    size_t n_ = 0;
    uint64_t buf_[3 + kMaxGroup] = {};  // nr, time_enabled, time_running, values...
};

}  // namespace kpc::perf
