#include "backends/perf_event/event_group.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "backends/perf_event/core_type_events.hpp"
#include "backends/perf_event/perf_errors.hpp"
#include "core/error.hpp"

namespace kpc::perf {

bool is_hardware(const Event &e) { return e.kind != KP_EVENT_SOFTWARE; }

perf_event_attr make_attr(const Event &e) {
    perf_event_attr a;
    std::memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = e.perf_type;
    a.config = e.perf_config;
    a.config1 = e.perf_config1;
    a.config2 = e.perf_config2;
    a.exclude_hv = 1;
    a.exclude_kernel = is_hardware(e) ? 1 : 0;
    if (e.modified) {  // ":u", ":k", ":uk": exactly the modes asked for
        a.exclude_user = e.exclude_user ? 1 : 0;
        a.exclude_kernel = e.exclude_kernel ? 1 : 0;
    }
    // Apple's PMU driver (Asahi Linux) refuses events that do not exclude guests
    // (EOPNOTSUPP); perf opens hardware events this way too, and a thread's own count
    // never includes a guest's.
    a.exclude_guest = is_hardware(e) ? 1 : 0;
    return a;
}

int open_event(perf_event_attr attr, int pid, int group_fd, unsigned long flags, int cpu) {
    int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, flags));
    // Not for an explicit ":k"/":uk" (it excludes neither mode, or only user mode): its
    // kernel-mode count was asked for, and apply_modifiers has checked it is allowed.
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel &&
        attr.type == PERF_TYPE_SOFTWARE && !attr.exclude_user && !attr.exclude_idle) {
        // perf_event_paranoid >= 2 forbids kernel-mode counts for unprivileged users;
        // software events still work user-only (docs/events.md says what that changes).
        attr.exclude_kernel = 1;
        fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, flags));
    }
    return fd;
}

std::string group_pmu_conflict(const std::vector<const Event *> &events, size_t i) {
    if (!is_hardware(*events[i])) return "";
    const uint32_t mine = explicit_pmu_type(*events[i]);
    if (mine == 0) return "";  // the kernel picks its PMU: no telling
    for (size_t j = 0; j < i; ++j) {
        const uint32_t theirs = is_hardware(*events[j]) ? explicit_pmu_type(*events[j]) : 0;
        if (theirs == 0 || theirs == mine) continue;
        return "event '" + events[i]->name + "' (" + events[i]->native_name +
               ") counts on another PMU than '" + events[j]->name + "' (" +
               events[j]->native_name +
               "), and the kernel schedules a group on one PMU only: count each core type's "
               "events with its own kp_thread_t";
    }
    return "";
}

EventGroup::EventGroup(const std::vector<const Event *> &events) : n_(events.size()) {
    if (n_ == 0 || n_ > kMaxGroup) fail(KP_EINVAL, "a perf_event group holds 1 to " + std::to_string(kMaxGroup) + " events");
    fds_.reserve(n_);
    for (size_t i = 0; i < n_; ++i) {
        perf_event_attr a = make_attr(*events[i]);
        a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                        PERF_FORMAT_TOTAL_TIME_RUNNING;
        a.disabled = i == 0 ? 1 : 0;  // members follow the leader
        int fd = open_event(a, 0, i == 0 ? -1 : fds_[0], PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            for (int open_fd : fds_) close(open_fd);
            fds_.clear();
            if (err == EINVAL) {
                std::string conflict = group_pmu_conflict(events, i);
                if (!conflict.empty()) fail(KP_ECONFLICT, conflict + " " + errno_text(err), err);
            }
            throw_open_error(err, events[i]->name, is_hardware(*events[i]), i > 0);
        }
        fds_.push_back(fd);
    }
}

EventGroup::~EventGroup() {
    for (int fd : fds_) close(fd);
}

// Start and stop switch the leader only. The members stay enabled and count exactly while
// their leader is scheduled. PERF_IOC_FLAG_GROUP would disable the members too, and on
// re-enable the kernel schedules the leader before the members are enabled, so they stay
// idle until the thread's next context switch (seen on Linux 6.18).
void EventGroup::start() {
    if (ioctl(fds_[0], PERF_EVENT_IOC_ENABLE, 0) != 0) {
        int err = errno;
        fail(KP_EKERNEL, "ioctl(PERF_EVENT_IOC_ENABLE) failed " + errno_text(err), err);
    }
}

void EventGroup::stop() {
    if (ioctl(fds_[0], PERF_EVENT_IOC_DISABLE, 0) != 0) {
        int err = errno;
        fail(KP_EKERNEL, "ioctl(PERF_EVENT_IOC_DISABLE) failed " + errno_text(err), err);
    }
}

int EventGroup::fill() noexcept {
    const size_t want = (3 + n_) * sizeof(uint64_t);
    ssize_t got = ::read(fds_[0], buf_, want);
    if (got != static_cast<ssize_t>(want)) {
        int err = got < 0 ? errno : EIO;
        return record_error(KP_EKERNEL, "read() of the perf_event group failed", err);
    }
    return KP_OK;
}

int EventGroup::read(uint64_t *values, uint8_t *complete, uint64_t *enabled_ns,
                     uint64_t *running_ns) noexcept {
    if (int rc = fill(); rc != KP_OK) return rc;
    *enabled_ns = buf_[1];
    *running_ns = buf_[2];
    const bool whole = buf_[1] == buf_[2];
    for (size_t i = 0; i < n_; ++i) {
        values[i] = buf_[3 + i];
        if (complete) complete[i] = whole ? 1 : 0;
    }
    return KP_OK;
}

int EventGroup::read_values(uint64_t *values) noexcept {
    if (int rc = fill(); rc != KP_OK) return rc;
    for (size_t i = 0; i < n_; ++i) values[i] = buf_[3 + i];
    // kp_thread_sample has no `complete` to tell that the kernel multiplexed the group, so
    // it says so by its status (issue 17 4.4): a partial count is never KP_OK.
    if (__builtin_expect(buf_[1] != buf_[2], 0)) return partial(buf_[2], buf_[1]);
    return KP_OK;
}

int EventGroup::partial(uint64_t running_ns, uint64_t enabled_ns) noexcept {
    char msg[512];
    std::snprintf(msg, sizeof msg,
                  "kp_thread_sample: the values are partial: the kernel multiplexed this "
                  "handle's events, which were on counters %llu of the %llu ns they were "
                  "enabled, because other events held the counters (this thread's other "
                  "kp_thread_t handles, or another program's: perf, a watchdog). The values "
                  "were written; read them with kp_thread_sample_full and scale by the times, "
                  "or count fewer events at once (a new handle starts whole)",
                  static_cast<unsigned long long>(running_ns),
                  static_cast<unsigned long long>(enabled_ns));
    return record_error(KP_EPARTIAL, msg);
}

}  // namespace kpc::perf
