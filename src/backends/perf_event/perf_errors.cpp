#include "backends/perf_event/perf_errors.hpp"

#include <cerrno>
#include <fstream>

#include "core/error.hpp"

namespace kpc::perf {

int paranoid_level() {
    std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
    int level = 99;
    if (!(f >> level)) return 99;
    return level;
}

bool is_transient(int err) {
    return err == EMFILE || err == ENFILE || err == ENOMEM || err == EAGAIN;
}

namespace {

// The status for `err` and what it means, with the fix and the errno.
int open_error_cause(int err, bool hardware, bool in_group, std::string *cause) {
    int status = KP_EKERNEL;
    std::string why;
    switch (err) {
    case EACCES:
    case EPERM: {
        status = KP_EPERM;
        int level = paranoid_level();
        why = "permission denied: kernel.perf_event_paranoid is " + std::to_string(level) +
              ". Allow per-thread counting with 'sudo sysctl -w kernel.perf_event_paranoid=1' "
              "(or run as root, or grant CAP_PERFMON); inside a container the seccomp profile "
              "may block perf_event_open (docker: --cap-add PERFMON or a profile that allows it)";
        break;
    }
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        status = KP_EUNAVAILABLE;
        why = hardware ? "hardware events are not supported on this machine (virtual machine "
                         "without a PMU?); software events such as task-clock still work"
                       : "this kernel does not support the event";
        break;
    case EMFILE:
    case ENFILE:
        status = KP_EKERNEL;
        why = "too many open files: each counted event uses one file descriptor; raise the "
              "limit with 'ulimit -n' or count fewer events";
        break;
    case EBUSY:
        status = KP_EBUSY;
        why = "the PMU is held exclusively by another tool (another perf user or a pinned "
              "event); stop it and try again";
        break;
    case EINVAL:
        if (in_group && hardware) {
            status = KP_ECONFLICT;
            why = "the kernel cannot schedule this group: the PMU has too few counters for "
                  "these hardware events together, or they count on different PMUs (a hybrid "
                  "CPU's core types); split them into smaller groups (a kp_thread_t's events form one group)";
        } else {
            why = "the kernel rejected the event encoding (check the raw code or event name)";
        }
        break;
    case E2BIG:
        why = "the kernel rejected the perf_event_attr size (kernel too old)";
        break;
    default:
        why = "the kernel refused the event";
        break;
    }
    *cause = why + " " + errno_text(err);
    return status;
}

}  // namespace

int diagnose_open_error(int err, bool hardware, bool in_group, std::string *reason,
                        const std::string &event) {
    std::string cause;
    int status = open_error_cause(err, hardware, in_group, &cause);
    const std::string head = event.empty() ? "perf_event_open: " : "perf_event_open(" + event + "): ";
    if (reason) *reason = head + cause;
    return status;
}

void throw_open_error(int err, const std::string &event, bool hardware, bool in_group) {
    std::string msg;
    int status = diagnose_open_error(err, hardware, in_group, &msg, event);
    fail(status, msg, err);
}

}  // namespace kpc::perf
