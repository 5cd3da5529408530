// Counting a whole child process: the one place kpc calls libkpc's internal C++ API
// (Backend::open_process), which the public C API does not offer; its result record,
// kpc::ProcessCount, is shared with the report code.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "kpc/kpc.h"

namespace kpc_cli {

// One event's count for the whole command: the core's own record (value, times, and the
// status and reason when it could not be counted).
using ProcessEventCount = kpc::ProcessCount;

class ProcessCounting {
public:
    // Attach `events` (from kp_sampler_event_find on `sampler`) to child `pid`, which must
    // not have exec'd yet: counting starts at its exec and follows every thread and process
    // it creates. Events that cannot be counted are reported by read(), not thrown; throws
    // CliError when nothing can be counted (e.g. a backend without process counting).
    // With no events, attaches nothing. `groups` has one entry per event: the number of
    // its {group} (events of one group are counted over the same time), or -1.
    ProcessCounting(kp_sampler_t *sampler, const std::vector<const kp_event_t *> &events,
                    const std::vector<int> &groups, pid_t pid);
    ~ProcessCounting();
    ProcessCounting(const ProcessCounting &) = delete;
    ProcessCounting &operator=(const ProcessCounting &) = delete;

    // Call once the child has exited, before it is reaped (ChildProcess::wait's `exited`):
    // the recount backend reads the command's own totals here.
    void child_exited() noexcept;
    // One entry per event, in order, each with its `source` set. Call after the child has
    // been reaped.
    std::vector<ProcessEventCount> read();
    // True when the counts cover every CPU, not only the command (the kperf backend).
    bool system_wide() const;

private:
    std::unique_ptr<kpc::ProcessCounters> counters_;
};

}  // namespace kpc_cli
