// kpc stat -p and -a: counters kpc attaches rather than starts with a command, counted from
// now on: running processes (kp_process_attach_ex with a pid) or every CPU
// (KP_PROCESS_SYSTEM_WIDE).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/stat_counted_command.hpp"
#include "kpc/kpc.h"

namespace kpc_cli {

class AttachedProcesses {
public:
    // Attaches `events` (with their {group} numbers, or -1) to every pid, or to every CPU
    // when `pids` is {KP_PROCESS_SYSTEM_WIDE}. Events the backend refuses are reported per
    // event by read(), as for a command. Throws CliError (125) naming the pid and the cause.
    AttachedProcesses(kp_sampler_t *sampler, const std::vector<std::string> &events,
                      const std::vector<int> &groups, const std::vector<int> &pids);
    ~AttachedProcesses();  // detaches; the processes run on
    AttachedProcesses(const AttachedProcesses &) = delete;
    AttachedProcesses &operator=(const AttachedProcesses &) = delete;

    // Per event, the sum over the processes, as perf stat -p sums them.
    std::vector<ProcessEventCount> read();
    // Every counted thread's own counts (kp_process_read_thread), process by process, per
    // attached event (unset where the process's count failed); comm "?" if unknown.
    std::vector<ThreadCounts> read_threads();
    // How many threads read_threads() has rows for (0 where the backend has no per-thread
    // counts, as on Apple).
    size_t thread_count() const;
    bool system_wide() const;
    std::vector<pid_t> pids() const;  // empty for every CPU

private:
    std::vector<kp_process_t *> processes_;
    std::vector<std::vector<std::string>> comms_;  // per process, per thread: its name at attach
};

}  // namespace kpc_cli
