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

bool ask_user_access(perf_event_attr &a) {
#if defined(__aarch64__)
    // The arm64 PMU's format: config1 bit 1 "rdpmc" (user access), bit 0 "long" (a 64-bit
    // counter). Only for the core PMU's own types, and only when the event sets no config1
    // of its own: on another PMU these bits mean something else.
    const bool core_type = a.type == PERF_TYPE_HARDWARE || a.type == PERF_TYPE_HW_CACHE ||
                           a.type == PERF_TYPE_RAW;
    if (!core_type || a.config1 != 0) return false;
    a.config1 = 0x3;
    return true;
#else
    (void)a;  // x86-64: rdpmc needs nothing in the attr
    return false;
#endif
}

EventGroup::EventGroup(const std::vector<const Event *> &events, const std::string &user_reads_off)
    : n_(events.size()) {
    if (n_ == 0 || n_ > kMaxGroup)
        fail(KP_EINVAL, "a perf_event group holds 1 to " + std::to_string(kMaxGroup) + " events");
    facts_.switched_off = user_reads_off;
    facts_.arch = kUserReadArch;
    for (const Event *e : events)
        if (!is_hardware(*e) && facts_.software_event.empty()) facts_.software_event = e->name;
    const bool want_user = user_read_refusal(facts_).empty();
    fds_.reserve(n_);
    names_.reserve(n_);
    for (size_t i = 0; i < n_; ++i) {
        perf_event_attr a = make_attr(*events[i]);
        a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                        PERF_FORMAT_TOTAL_TIME_RUNNING;
        a.disabled = i == 0 ? 1 : 0;  // members follow the leader
        int group_fd = i == 0 ? -1 : fds_[0];
        int fd = want_user ? open_member(a, *events[i], group_fd)
                           : open_event(a, 0, group_fd, PERF_FLAG_FD_CLOEXEC);
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
        names_.push_back(events[i]->name);
    }
    if (want_user) prepare_user_reads(events);
    refusal_ = user_read_refusal(facts_);
}

int EventGroup::open_member(perf_event_attr a, const Event &e, int group_fd) {
    perf_event_attr user = a;
    if (!ask_user_access(user)) return open_event(a, 0, group_fd, PERF_FLAG_FD_CLOEXEC);
    int fd = open_event(user, 0, group_fd, PERF_FLAG_FD_CLOEXEC);
    // Without the PMU's long-event support only the cycle counter is 64 bits wide for user
    // access: ask for a 32-bit counter, whose wraps the kernel's offset absorbs.
    if (fd < 0 && errno == EOPNOTSUPP) {
        user.config1 = 0x2;
        fd = open_event(user, 0, group_fd, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd >= 0) return fd;
    int err = errno;
    fd = open_event(a, 0, group_fd, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0 && facts_.refused.empty())
        facts_.refused = "event '" + e.name +
                         "': the kernel refused it with user access (config1 rdpmc bit) " +
                         errno_text(err) + "; it counts, read with read()";
    return fd;
}

void EventGroup::prepare_user_reads(const std::vector<const Event *> &events) {
    if (!facts_.refused.empty()) return;
#if defined(__aarch64__)
    facts_.arm64 = true;
#endif
    facts_.user_access_setting = read_user_access_setting();
    facts_.unmapped = pages_.map(fds_, names_);
    if (!facts_.unmapped.empty()) return;
    for (size_t i = 0; i < n_; ++i)
        if (!pages_.page(i)->cap_user_rdpmc) {
            facts_.no_rdpmc_event = events[i]->name;
            break;
        }
    if (!user_read_refusal(facts_).empty()) {
        pages_.unmap();
        return;
    }
    user_ = true;  // until the first start's check says otherwise
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
    if (user_ && !checked_) check_user_reads();
}

// Never a wrong value: the first time the group counts, one user-space read before and
// one after a read() must bracket it, for every event. Then the counts restart from 0,
// so the check costs the caller's counts nothing.
void EventGroup::check_user_reads() {
    checked_ = true;
    uint64_t before[kMaxGroup], after[kMaxGroup];
    const bool first = pages_.read_values(before);
    const int rc = fill();
    const bool second = pages_.read_values(after);
    if (rc != KP_OK) {
        facts_.disagreement = "read() failed";
    } else if (buf_[1] != buf_[2]) {
        facts_.multiplexed = true;
    } else if (!first || !second) {
        // Which page said no: not on a counter (index 0), or no user access any more.
        facts_.user_access_setting = read_user_access_setting();  // switched off since?
        for (size_t i = 0; i < n_ && facts_.off_counter.empty(); ++i)
            if (pages_.page(i)->index == 0) facts_.off_counter = names_[i];
        if (facts_.off_counter.empty()) facts_.disagreement = "a page refused the read";
    } else {
        facts_.disagreement = bracket_disagreement(names_, before, buf_ + 3, after);
    }
    refusal_ = user_read_refusal(facts_);
    if (!refusal_.empty()) {
        user_ = false;
        pages_.unmap();
    }
    if (ioctl(fds_[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) != 0) {
        int err = errno;
        fail(KP_EKERNEL, "ioctl(PERF_EVENT_IOC_RESET) failed " + errno_text(err), err);
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
    if (user_) {
        uint64_t times[2];
        if (pages_.read(values, times)) {
            *enabled_ns = times[0];
            *running_ns = times[1];
            if (complete)
                for (size_t i = 0; i < n_; ++i) complete[i] = 1;
            return KP_OK;
        }
    }
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
    if (user_ && pages_.read_values(values)) return KP_OK;
    return read_values_with_read(values);  // a tail call: the user-space path keeps no frame
}

int EventGroup::read_values_with_read(uint64_t *values) noexcept {
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
