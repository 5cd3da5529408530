// The command kpc stat runs and counts, through the public process API (kpc/process.h):
// started counted from its exec, waited for with kpc's signals passed on to it, then read.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/stat_result.hpp"
#include "kpc/kpc.h"

namespace kpc_cli {

struct CommandExit {
    int exit_code = -1;     // 0-255 when it exited, else -1
    int term_signal = 0;    // the signal that killed it, else 0
    struct rusage usage {};  // the command's (and its reaped descendants') resource usage
    double elapsed_ns = 0;  // wall time from before its release (its spawn) to its exit
    // kpc's exit status for this command: its exit code, or 128+signal.
    int exit_status() const { return term_signal ? 128 + term_signal : exit_code; }
};

class CountedCommand {
public:
    // Starts `argv` counting `events` (names; at least one) from its exec. `groups` has one
    // entry per event: its {group} number, or -1. Events that cannot be counted are
    // reported by read(). Throws CliError: exit 127/126 when the command cannot be run.
    CountedCommand(kp_sampler_t *sampler, const std::vector<std::string> &events,
                   const std::vector<int> &groups, const std::vector<std::string> &argv);
    ~CountedCommand();  // a command not waited for is killed and reaped (kp_process_free)
    CountedCommand(const CountedCommand &) = delete;
    CountedCommand &operator=(const CountedCommand &) = delete;

    // Waits for the command to end, passing kpc's SIGTERM and SIGHUP on to it meanwhile
    // (RunSignals), and reaps it. Call once.
    CommandExit wait();
    // One entry per event, in order. Call after wait().
    std::vector<ProcessEventCount> read();
    // True when some count covers every CPU, not only the command (Apple kperf).
    bool system_wide() const;
    pid_t pid() const { return static_cast<pid_t>(kp_process_pid(process_)); }
    kp_process_t *handle() const { return process_; }

private:
    kp_process_t *process_ = nullptr;
    double start_ns_ = 0;
};

// Every event's count in `p` (kp_process_read_full, kp_process_event_status and
// kp_process_event_scope). Throws CliError.
std::vector<ProcessEventCount> read_counts(kp_process_t *p);

// True when some event of `p` covers every CPU (KP_PROCESS_SCOPE_SYSTEM).
bool counts_system_wide(const kp_process_t *p);

}  // namespace kpc_cli
