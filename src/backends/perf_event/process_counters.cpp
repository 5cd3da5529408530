#include "backends/perf_event/process_counters.hpp"

#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "backends/perf_event/cpu_list.hpp"
#include "backends/perf_event/event_group.hpp"
#include "backends/perf_event/perf_errors.hpp"
#include "core/error.hpp"

namespace kpc::perf {
namespace {

perf_event_attr process_attr(const Event &e) {
    perf_event_attr a = make_attr(e);
    a.disabled = 1;
    a.inherit = 1;  // threads and processes created by a counted thread are counted too
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return a;
}

[[noreturn]] void no_such_process(int pid) {
    fail(KP_EINVAL,
         "no process has pid " + std::to_string(pid) +
             ": it has exited, or the pid is wrong; give the pid of a running process",
         ESRCH);
}

// The thread ids of `pid` now (/proc/<pid>/task).
std::vector<int> list_threads(int pid) {
    const std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR *d = opendir(dir.c_str());
    if (!d) {
        int err = errno;
        if (err == ENOENT) no_such_process(pid);
        if (err == EACCES || err == EPERM)
            fail(KP_EPERM, "cannot list the threads of process " + std::to_string(pid) + " in " +
                               dir + " (/proc mounted with hidepid?): run as its owner or as root " +
                               errno_text(err), err);
        fail(KP_EKERNEL, "cannot list the threads of process " + std::to_string(pid) + " in " +
                             dir + " " + errno_text(err), err);
    }
    std::vector<int> tids;
    while (dirent *ent = readdir(d)) {
        char *end = nullptr;
        long tid = std::strtol(ent->d_name, &end, 10);
        if (end != ent->d_name && *end == '\0' && tid > 0) tids.push_back(static_cast<int>(tid));
    }
    closedir(d);
    if (tids.empty()) no_such_process(pid);
    std::sort(tids.begin(), tids.end());
    return tids;
}

}  // namespace

ProcessEvents::ProcessEvents(size_t events, Mode mode, int pid, std::vector<int> targets)
    : mode_(mode), pid_(pid), targets_(std::move(targets)), events_(events) {
    for (PerEvent &pe : events_) {
        pe.fds.assign(targets_.size(), -1);
        pe.member.assign(targets_.size(), false);
    }
}

ProcessEvents::~ProcessEvents() {
    for (PerEvent &e : events_)
        for (int fd : e.fds)
            if (fd >= 0) close(fd);
}

// The refusal in this mode's words. perf_event_open fails with EACCES both when
// perf_event_paranoid forbids counting at all and when the caller may not trace the
// process; opening the same event on the calling thread tells them apart.
int ProcessEvents::diagnose(int err, const Event &e, int target, bool in_group,
                            std::string *message) const {
    const bool denied = err == EACCES || err == EPERM;
    if (denied && mode_ == Mode::system) {
        *message = "perf_event_open on CPU " + std::to_string(target) +
                   ": permission denied: counting every CPU (system-wide) needs "
                   "kernel.perf_event_paranoid <= 0 (it is " + std::to_string(paranoid_level()) +
                   ") or CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8). Run as root, or allow it "
                   "with 'sudo sysctl -w kernel.perf_event_paranoid=0' " + errno_text(err);
        return KP_EPERM;
    }
    if (denied && mode_ == Mode::attached && pid_ != getpid()) {
        int fd = open_event(process_attr(e), 0, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            *message = "perf_event_open on process " + std::to_string(pid_) +
                       ": permission denied: counting another process needs the right to trace "
                       "it, and process " + std::to_string(pid_) +
                       " belongs to another user or is more privileged (setuid, not dumpable). "
                       "Run as the user who owns it, or as root (CAP_SYS_PTRACE) " + errno_text(err);
            return KP_EPERM;
        }
    }
    return diagnose_open_error(err, is_hardware(e), in_group, message);
}

void ProcessEvents::open_all(const std::vector<const Event *> &events, const std::vector<int> &groups) {
    const std::vector<int> online = mode_ == Mode::system ? online_cpus() : std::vector<int>();
    std::vector<std::vector<int>> event_cpus;  // system-wide: the CPUs each event's PMU serves
    for (size_t i = 0; i < events.size(); ++i) events_[i].name = events[i]->name;
    for (const Event *e : events)
        event_cpus.push_back(mode_ == Mode::system ? cpus_for_event(process_attr(*e), online)
                                                   : std::vector<int>());
    for (size_t t = 0; t < targets_.size(); ++t) {
        const int target = targets_[t];
        std::map<int, std::vector<const Event *>> opened;  // group -> its events that opened here
        std::map<int, int> leader_fd;                      // group -> its leader's descriptor here
        for (size_t i = 0; i < events.size(); ++i) {
            PerEvent &pe = events_[i];
            if (pe.status != KP_OK) continue;  // refused on an earlier target
            const std::vector<int> &cpus = event_cpus[i];
            if (mode_ == Mode::system && !std::binary_search(cpus.begin(), cpus.end(), target))
                continue;  // its PMU does not serve this CPU
            const int group = i < groups.size() ? groups[i] : -1;
            auto leader = group >= 0 ? leader_fd.find(group) : leader_fd.end();
            const int leader_fd_here = leader != leader_fd.end() ? leader->second : -1;
            perf_event_attr a = process_attr(*events[i]);
            // A child's events, a group's members too, switch on at its exec: the kernel
            // enables them all in one pass there, so a group starts whole.
            if (mode_ == Mode::child) a.enable_on_exec = 1;
            // Elsewhere a member is on from the start and counts whenever its leader does.
            if (mode_ != Mode::child && leader_fd_here >= 0) a.disabled = 0;
            if (mode_ == Mode::system) a.inherit = 0;  // a CPU has no children to follow
            int fd = mode_ == Mode::system
                         ? open_event(a, -1, leader_fd_here, PERF_FLAG_FD_CLOEXEC, target)
                         : open_event(a, target, leader_fd_here, PERF_FLAG_FD_CLOEXEC);
            if (fd >= 0) {
                pe.fds[t] = fd;
                pe.member[t] = leader_fd_here >= 0;
                if (group >= 0) {
                    leader_fd.emplace(group, fd);
                    opened[group].push_back(events[i]);
                }
                continue;
            }
            const int err = errno;
            if (mode_ == Mode::attached && err == ESRCH) break;  // the thread ended: skip it
            pe.os_code = err;
            if (group >= 0 && err == EINVAL) {
                std::vector<const Event *> mates = opened[group];
                mates.push_back(events[i]);
                pe.error = group_pmu_conflict(mates, mates.size() - 1);
                if (!pe.error.empty()) {
                    pe.status = KP_ECONFLICT;
                    pe.error += " " + errno_text(err);
                }
            }
            if (pe.status == KP_OK)
                pe.status = diagnose(err, *events[i], target, leader_fd_here >= 0, &pe.error);
        }
    }
    // An event refused anywhere is not counted at all: a sum over some targets would pass
    // for the whole.
    for (PerEvent &pe : events_)
        if (pe.status != KP_OK)
            for (int &fd : pe.fds)
                if (fd >= 0) close(std::exchange(fd, -1));
}

std::unique_ptr<ProcessEvents> ProcessEvents::for_child(const std::vector<const Event *> &events,
                                                        int pid, const std::vector<int> &groups) {
    std::unique_ptr<ProcessEvents> p(new ProcessEvents(events.size(), Mode::child, pid, {pid}));
    p->open_all(events, groups);
    return p;
}

std::unique_ptr<ProcessEvents> ProcessEvents::attach(const std::vector<const Event *> &events,
                                                     int pid, const std::vector<int> &groups) {
    std::unique_ptr<ProcessEvents> p(
        new ProcessEvents(events.size(), Mode::attached, pid, list_threads(pid)));
    p->open_all(events, groups);
    p->drop_ended_threads();
    bool refused = false;
    for (const PerEvent &pe : p->events_) refused = refused || pe.status != KP_OK;
    if (p->targets_.empty() && !refused) no_such_process(pid);  // every thread had ended
    p->start();  // all at once, so every event covers the same span
    return p;
}

std::unique_ptr<ProcessEvents> ProcessEvents::system_wide(const std::vector<const Event *> &events,
                                                          const std::vector<int> &groups) {
    std::unique_ptr<ProcessEvents> p(new ProcessEvents(events.size(), Mode::system, -1, online_cpus()));
    p->open_all(events, groups);
    p->start();
    return p;
}

// A thread that ended between the listing and its counters has none: no row for it.
void ProcessEvents::drop_ended_threads() {
    size_t kept = 0;
    for (size_t t = 0; t < targets_.size(); ++t) {
        bool counted = false;
        for (const PerEvent &pe : events_) counted = counted || pe.fds[t] >= 0;
        if (!counted) continue;
        targets_[kept] = targets_[t];
        for (PerEvent &pe : events_) {
            pe.fds[kept] = pe.fds[t];
            pe.member[kept] = pe.member[t];
        }
        ++kept;
    }
    targets_.resize(kept);
    for (PerEvent &pe : events_) {
        pe.fds.resize(kept);
        pe.member.resize(kept);
    }
}

void ProcessEvents::require_all_events() const {
    for (const PerEvent &e : events_)
        if (e.status != KP_OK) fail(e.status, "event '" + e.name + "': " + e.error, e.os_code);
}

void ProcessEvents::require_some_event() const {
    for (const PerEvent &e : events_)
        if (e.status == KP_OK) return;
    require_all_events();
}

// enable_on_exec switches the counters on inside the child's execve, after the kernel has
// closed its close-on-exec descriptors, which is how the caller learned that the exec
// succeeded. A stop() in between would be undone by the exec. An event that was never
// enabled has time_enabled 0; once enabled it grows as the child runs.
void ProcessEvents::child_execed() noexcept {
    int fd = -1;
    for (const PerEvent &e : events_)
        if (!e.fds.empty() && e.fds[0] >= 0) {
            fd = e.fds[0];
            break;
        }
    if (fd < 0) return;
    for (int i = 0; i < 20000; ++i) {  // at most about a second: never hang on a stuck child
        uint64_t buf[3] = {};
        if (::read(fd, buf, sizeof buf) == static_cast<ssize_t>(sizeof buf) && buf[1] > 0) return;
        siginfo_t info{};
        int w = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
        if (w != 0 || info.si_pid == pid_) return;  // ended (or not ours to watch)
        timespec pause = {0, 50 * 1000};
        nanosleep(&pause, nullptr);
    }
}

std::vector<ProcessCount> ProcessEvents::read_targets(size_t first, size_t last) const {
    std::vector<ProcessCount> out(events_.size());
    for (size_t i = 0; i < events_.size(); ++i) {
        const PerEvent &pe = events_[i];
        ProcessCount &c = out[i];
        if (pe.status != KP_OK) {
            c.status = pe.status;
            c.error = pe.error;
            continue;
        }
        c.counted = true;
        for (size_t t = first; t < last; ++t) {
            if (pe.fds[t] < 0) continue;
            uint64_t buf[3] = {};
            if (::read(pe.fds[t], buf, sizeof buf) != static_cast<ssize_t>(sizeof buf)) {
                c = ProcessCount{};
                c.status = KP_EKERNEL;
                c.error = "read() of the counter failed " + errno_text(errno);
                break;
            }
            c.value += buf[0];
            c.enabled_ns += buf[1];
            c.running_ns += buf[2];
        }
    }
    return out;
}

std::vector<ProcessCount> ProcessEvents::read() { return read_targets(0, targets_.size()); }

std::vector<ProcessCount> ProcessEvents::read_thread(size_t index, int &tid) {
    if (mode_ == Mode::system || index >= targets_.size())
        fail(KP_EINVAL, "thread index " + std::to_string(index) + " is out of range: the handle has " +
                            std::to_string(thread_count()) + " (kp_process_thread_count)");
    tid = targets_[index];
    return read_targets(index, index + 1);
}

// ioctl on an inherited event's descriptor also reaches the copies the kernel made for
// the threads and processes created since, so these pause and resume the whole tree.
// Group members are left on: their leader's switch stops and starts the whole group.
void ProcessEvents::for_every_fd(unsigned long request, const char *name) {
    int first_err = 0;
    for (PerEvent &e : events_)
        for (size_t t = 0; t < e.fds.size(); ++t)
            if (e.fds[t] >= 0 && !e.member[t] && ioctl(e.fds[t], request, 0) != 0 && first_err == 0)
                first_err = errno;
    if (first_err != 0)
        fail(KP_EKERNEL, std::string("ioctl(") + name + ") failed " + errno_text(first_err),
             first_err);
}

void ProcessEvents::stop() { for_every_fd(PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE"); }

void ProcessEvents::start() { for_every_fd(PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE"); }

}  // namespace kpc::perf
