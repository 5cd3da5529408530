// Counting a whole child process: the one place kpc uses libkpc's internal C++ API
// (Backend::open_process), which the public C API does not offer.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kpc/kpc.h"

namespace kpc {
class ProcessCounters;
}

namespace kpc_cli {

struct ProcessEventCount {
    bool counted = false;  // false: `status` and `error` say why
    int status = KP_OK;    // KP_EUNAVAILABLE / KP_EUNSUPPORTED: the machine cannot count it
    uint64_t value = 0;
    uint64_t enabled_ns = 0;  // 0 when the backend does not measure it
    uint64_t running_ns = 0;
    std::string error;
};

class ProcessCounting {
public:
    // Attach `events` (from kp_sampler_event_find on `sampler`) to child `pid`, which must
    // not have exec'd yet: counting starts at its exec and follows every thread and process
    // it creates. Events that cannot be counted are reported by read(), not thrown; throws
    // CliError when nothing can be counted (e.g. a backend without process counting).
    // With no events, attaches nothing.
    ProcessCounting(kp_sampler_t *sampler, const std::vector<const kp_event_t *> &events, pid_t pid);
    ~ProcessCounting();
    ProcessCounting(const ProcessCounting &) = delete;
    ProcessCounting &operator=(const ProcessCounting &) = delete;

    // One entry per event, in order. Call after the child has been reaped.
    std::vector<ProcessEventCount> read();
    // True when the counts cover every CPU, not only the command (the kperf backend).
    bool system_wide() const;

private:
    std::unique_ptr<kpc::ProcessCounters> counters_;
};

}  // namespace kpc_cli
