// One kp_thread_t's events as a single perf_event group on the calling thread, read with
// one read() (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING), or from user
// space through the events' pages where the kernel allows it (user_read.hpp).
#pragma once

#include <linux/perf_event.h>

#include <string>
#include <vector>

#include "backends/perf_event/user_read.hpp"
#include "backends/perf_event/user_read_choice.hpp"
#include "core/backend.hpp"

namespace kpc::perf {

// Largest group a kp_thread_t may hold (kp_thread_new enforces it).
constexpr size_t kMaxGroup = KP_MAX_EVENTS;

// attr for `e`; hardware events count user mode only, matching Apple's kpc (docs/events.md).
perf_event_attr make_attr(const Event &e);
bool is_hardware(const Event &e);
// Asks in `a` for user access to the counter where the architecture wants it asked
// (arm64: config1 "rdpmc" and "long" bits); false when `a` is left as it was.
bool ask_user_access(perf_event_attr &a);
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
    // `user_reads_off`: why user-space reads are switched off (options, KPC_USER_READS), or "".
    EventGroup(const std::vector<const Event *> &events, const std::string &user_reads_off);
    ~EventGroup() override;
    void start() override;
    void stop() override;
    int read(uint64_t *values, uint8_t *complete, uint64_t *enabled_ns,
             uint64_t *running_ns) noexcept override;
    int read_values(uint64_t *values) noexcept override;
    const char *user_reads_refusal() const noexcept override { return refusal_.c_str(); }

private:
    // Opens member `i` for user-space reads where the arch needs it asked (arm64's
    // config1), else as `a`; records in facts_ an event the kernel refused that way.
    int open_member(perf_event_attr a, const Event &e, int group_fd);
    // After the fds are open: maps the pages and reads what they allow (facts_, refusal_).
    void prepare_user_reads(const std::vector<const Event *> &events);
    // At the first start: the user-space read against read(), then the counts reset.
    void check_user_reads();
    // One read() of the group into buf_; KP_OK or a status after record_error().
    int fill() noexcept;
    // read_values() through read(): out of line, so the user-space path needs no frame.
    __attribute__((noinline)) int read_values_with_read(uint64_t *values) noexcept;
    // Records KP_EPARTIAL with the times; out of line and cold, off the hot path.
    __attribute__((cold, noinline)) static int partial(uint64_t running_ns,
                                                       uint64_t enabled_ns) noexcept;

    std::vector<int> fds_;
    std::vector<std::string> names_;
    size_t n_ = 0;
    bool user_ = false;     // samples are read through pages_ (read() when a page says no)
    bool checked_ = false;  // the first start has checked the user-space read
    UserPages pages_;
    UserReadFacts facts_;
    std::string refusal_;   // user_read_refusal(facts_): "" while user_
    uint64_t buf_[3 + kMaxGroup] = {};  // nr, time_enabled, time_running, values...
};

}  // namespace kpc::perf
