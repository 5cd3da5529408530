#include "backends/perf_event/process_counters.hpp"

#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

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
    return tids;
}

// perf_event_open on another process fails with EACCES both when perf_event_paranoid forbids
// counting at all and when the caller may not trace that process. Opening the same event
// on the calling thread tells them apart.
[[noreturn]] void throw_attach_error(int err, const Event &e, int pid) {
    if ((err == EACCES || err == EPERM) && pid != getpid()) {
        int fd = open_event(process_attr(e), 0, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            fail(KP_EPERM,
                 "perf_event_open(" + e.name + ") on process " + std::to_string(pid) +
                     ": permission denied: counting another process needs the right to trace "
                     "it, and process " + std::to_string(pid) +
                     " belongs to another user or is more privileged (setuid, not dumpable). "
                     "Run as the user who owns it, or as root (CAP_SYS_PTRACE) " +
                     errno_text(err),
                 err);
        }
    }
    throw_open_error(err, e.name, is_hardware(e), false);
}

}  // namespace

ProcessEvents::ProcessEvents(const std::vector<const Event *> &events, int pid)
    : pid_(pid), events_(events.size()) {}

ProcessEvents::~ProcessEvents() {
    for (PerEvent &e : events_)
        for (int fd : e.fds) close(fd);
}

std::unique_ptr<ProcessEvents> ProcessEvents::for_child(const std::vector<const Event *> &events,
                                                        int pid, const std::vector<int> &groups) {
    std::unique_ptr<ProcessEvents> p(new ProcessEvents(events, pid));
    std::map<int, std::vector<const Event *>> opened;  // group -> its events that opened
    std::map<int, int> leader_fd;                      // group -> its leader's descriptor
    for (size_t i = 0; i < events.size(); ++i) {
        const int group = i < groups.size() ? groups[i] : -1;
        auto leader = group >= 0 ? leader_fd.find(group) : leader_fd.end();
        perf_event_attr a = process_attr(*events[i]);
        // Every event, a group's members too, switches on at the exec: the kernel enables
        // them all in one pass there, so a group starts whole.
        a.enable_on_exec = 1;
        int fd = open_event(a, pid, leader != leader_fd.end() ? leader->second : -1,
                            PERF_FLAG_FD_CLOEXEC);
        PerEvent &pe = p->events_[i];
        if (fd >= 0) {
            pe.fds.push_back(fd);
            if (group >= 0) {
                leader_fd.emplace(group, fd);
                opened[group].push_back(events[i]);
            }
            continue;
        }
        pe.os_code = errno;
        if (group >= 0 && pe.os_code == EINVAL) {
            std::vector<const Event *> mates = opened[group];
            mates.push_back(events[i]);
            pe.error = group_pmu_conflict(mates, mates.size() - 1);
            if (!pe.error.empty()) {
                pe.status = KP_ECONFLICT;
                pe.error += " " + errno_text(pe.os_code);
                continue;
            }
        }
        pe.status = diagnose_open_error(pe.os_code, events[i]->name, is_hardware(*events[i]),
                                        leader != leader_fd.end(), &pe.error);
    }
    return p;
}

std::unique_ptr<ProcessEvents> ProcessEvents::attach(const std::vector<const Event *> &events,
                                                     int pid) {
    std::unique_ptr<ProcessEvents> p(new ProcessEvents(events, pid));
    const std::vector<int> tids = list_threads(pid);
    for (size_t i = 0; i < events.size(); ++i) {
        for (int tid : tids) {
            int fd = open_event(process_attr(*events[i]), tid, -1, PERF_FLAG_FD_CLOEXEC);
            if (fd >= 0) {
                p->events_[i].fds.push_back(fd);
                continue;
            }
            int err = errno;
            if (err == ESRCH) continue;  // the thread ended after the listing: nothing to count
            throw_attach_error(err, *events[i], pid);
        }
        if (p->events_[i].fds.empty()) no_such_process(pid);  // every thread had ended
    }
    p->start();  // all at once, so every event covers the same span
    return p;
}

void ProcessEvents::require_all_events() const {
    for (const PerEvent &e : events_)
        if (e.status != KP_OK) fail(e.status, e.error, e.os_code);
}

// enable_on_exec switches the counters on inside the child's execve, after the kernel has
// closed its close-on-exec descriptors, which is how the caller learned that the exec
// succeeded. A stop() in between would be undone by the exec. An event that was never
// enabled has time_enabled 0; once enabled it grows as the child runs.
void ProcessEvents::child_execed() noexcept {
    int fd = -1;
    for (const PerEvent &e : events_)
        if (!e.fds.empty()) {
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

std::vector<ProcessCount> ProcessEvents::read() {
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
        for (int fd : pe.fds) {
            uint64_t buf[3] = {};
            if (::read(fd, buf, sizeof buf) != static_cast<ssize_t>(sizeof buf)) {
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

// ioctl on an inherited event's descriptor also reaches the copies the kernel made for
// the threads and processes created since, so these pause and resume the whole tree.
void ProcessEvents::for_every_fd(unsigned long request, const char *name) {
    int first_err = 0;
    for (PerEvent &e : events_)
        for (int fd : e.fds)
            if (ioctl(fd, request, 0) != 0 && first_err == 0) first_err = errno;
    if (first_err != 0)
        fail(KP_EKERNEL, std::string("ioctl(") + name + ") failed " + errno_text(first_err),
             first_err);
}

void ProcessEvents::stop() { for_every_fd(PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE"); }

void ProcessEvents::start() { for_every_fd(PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE"); }

}  // namespace kpc::perf
