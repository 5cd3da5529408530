// kpc stat -p: running processes kpc did not start, counted from now on (kp_process_attach).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "cli/counted_command.hpp"
#include "kpc/kpc.h"

namespace kpc_cli {

class AttachedProcesses {
public:
    // Attaches `events` to every pid. Throws CliError (125) naming the pid and the cause.
    AttachedProcesses(kp_sampler_t *sampler, const std::vector<std::string> &events,
                      const std::vector<int> &pids);
    ~AttachedProcesses();  // detaches; the processes run on
    AttachedProcesses(const AttachedProcesses &) = delete;
    AttachedProcesses &operator=(const AttachedProcesses &) = delete;

    // Per event, the sum over the processes, as perf stat -p sums them.
    std::vector<ProcessEventCount> read();
    bool system_wide() const;
    std::vector<pid_t> pids() const;

private:
    std::vector<kp_process_t *> processes_;
};

}  // namespace kpc_cli
