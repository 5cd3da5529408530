#include "cli/stat_counted_command.hpp"

#include <signal.h>
#include <sys/wait.h>

#include "cli/cli_error.hpp"
#include "cli/stat_process_watch.hpp"
#include "cli/stat_run_signals.hpp"

namespace kpc_cli {
namespace {

timeval minus(const timeval &a, const timeval &b) {
    timeval r;
    r.tv_sec = a.tv_sec - b.tv_sec;
    r.tv_usec = a.tv_usec - b.tv_usec;
    if (r.tv_usec < 0) {
        r.tv_usec += 1000000;
        r.tv_sec -= 1;
    }
    return r;
}

}  // namespace

CountedCommand::CountedCommand(kp_sampler_t *sampler, const std::vector<std::string> &events,
                               const std::vector<int> &groups, const std::vector<std::string> &argv) {
    std::vector<const char *> names, args;
    for (const std::string &e : events) names.push_back(e.c_str());
    for (const std::string &a : argv) args.push_back(a.c_str());
    args.push_back(nullptr);
    std::vector<int32_t> group_numbers(groups.begin(), groups.end());
    kp_process_options_t opts;
    kp_process_options_init(&opts, KP_PROCESS_OPTIONS_VERSION);
    opts.flags = KP_PROCESS_PARTIAL;  // report per event, as perf stat does
    opts.groups = group_numbers.data();
    // The clock starts before kp_process_spawn_ex releases the command, as perf stat's does:
    // a short command may have run to its end by the time the call returns, and its elapsed
    // time must never be shorter than its own CPU time. The counters' set-up is included.
    start_ns_ = now_ns();
    int rc = kp_process_spawn_ex(&process_, sampler, names.data(), names.size(), args.data(), &opts);
    if (rc == KP_OK) {
        forward_signals_to(static_cast<pid_t>(kp_process_pid(process_)));
        return;
    }
    int os = kp_error_last_os_code();
    std::string message = last_kp_error(rc);
    // The exec failed: exit as a shell does, from its errno.
    if (rc == KP_EEXEC) throw CliError(message, exec_failure_exit(os));
    throw CliError("cannot count the command: " + message, kExitStatFailed, rc);
}

CountedCommand::~CountedCommand() {
    stop_forwarding_signals();  // the pid is about to be reaped
    kp_process_free(process_);
}

CommandExit CountedCommand::wait() {
    CommandExit ex;
    // Then libkpc reads its totals and reaps it.
    wait_exit_then_stop_forwarding(static_cast<pid_t>(kp_process_pid(process_)));
    ex.elapsed_ns = now_ns() - start_ns_;
    // kp_process_wait reaps the command in this process, so the children's usage grows by
    // exactly the command's (kpc has no other child).
    rusage before{}, after{};
    getrusage(RUSAGE_CHILDREN, &before);
    int rc = kp_process_wait(process_, &ex.exit_code, &ex.term_signal);
    if (rc != KP_OK)
        throw CliError("waiting for the command failed: " + last_kp_error(rc), kExitStatFailed, rc);
    getrusage(RUSAGE_CHILDREN, &after);
    ex.usage.ru_utime = minus(after.ru_utime, before.ru_utime);
    ex.usage.ru_stime = minus(after.ru_stime, before.ru_stime);
    return ex;
}

std::vector<ProcessEventCount> read_counts(kp_process_t *p) {
    size_t n = kp_process_event_count(p);
    std::vector<uint64_t> values(n), enabled(n), running(n);
    std::vector<uint8_t> complete(n);
    int rc = kp_process_read_full(p, values.data(), complete.data(), n, enabled.data(),
                                  running.data());
    if (rc != KP_OK)
        throw CliError("cannot read the counters: " + last_kp_error(rc), kExitStatFailed, rc);
    std::vector<ProcessEventCount> counts(n);
    for (size_t i = 0; i < n; ++i) {
        ProcessEventCount &c = counts[i];
        const char *reason = nullptr;
        if (kp_process_event_status(p, i, &c.status, &reason) != KP_OK)
            throw CliError(last_kp_error(KP_EINVAL), kExitStatFailed);
        if (reason) c.error = reason;
        c.value = values[i];
        c.enabled_ns = enabled[i];
        c.running_ns = running[i];
        c.complete = complete[i] != 0;
        c.scope = kp_process_event_scope(p, i);
        c.native_name = kp_event_native_name(kp_process_event_at(p, i));
    }
    return counts;
}

std::vector<ProcessEventCount> CountedCommand::read() { return read_counts(process_); }

bool counts_system_wide(const kp_process_t *p) {
    for (size_t i = 0, n = kp_process_event_count(p); i < n; ++i)
        if (kp_process_event_scope(p, i) == KP_PROCESS_SCOPE_SYSTEM) return true;
    return false;
}

bool CountedCommand::system_wide() const { return counts_system_wide(process_); }

}  // namespace kpc_cli
