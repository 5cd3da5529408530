// `kpc stat` on kperf when libSystem can tell a process's own totals (proc_pid_rusage): the
// fixed counters' events (cycles, instructions) come from the command's own totals, read
// while it runs and, at its end, before it is reaped, as on the recount backend; the other
// events stay system-wide (SystemCounters), since kpc cannot attach counters to another
// process. Both halves read while running and pause together. Each count says where it
// came from (event_scope).
#pragma once

#include <memory>
#include <vector>

#include "backends/kperf/system_counters.hpp"
#include "backends/recount/libsystem.hpp"
#include "backends/recount/process_counters.hpp"
#include "core/backend.hpp"

namespace kpc::kperf {

class SplitProcessCounters final : public ProcessCounters {
public:
    // `own[i]` / `system[i]`: the positions, in the events given to count_process, of the
    // counts `rusage` / `system_wide` return in order. `system_wide` may be null (every
    // event is a process total). `lib` is what `rusage` reads through.
    SplitProcessCounters(std::unique_ptr<recount::LibSystem> lib,
                         std::unique_ptr<recount::RusageProcessCounters> rusage,
                         std::vector<size_t> own, std::unique_ptr<SystemCounters> system_wide,
                         std::vector<size_t> system);
    void child_exited() noexcept override { rusage_->child_exited(); }
    std::vector<ProcessCount> read() override;
    // What both halves can do; the scope of the set is the wider one.
    ProcessCapabilities capabilities() const override;
    void stop() override;
    void start() override;
    kp_process_scope_t event_scope(size_t index) const override;

private:
    std::unique_ptr<recount::LibSystem> lib_;  // declared first: outlives rusage_
    std::unique_ptr<recount::RusageProcessCounters> rusage_;
    std::vector<size_t> own_;
    std::unique_ptr<SystemCounters> system_;
    std::vector<size_t> system_at_;
};

}  // namespace kpc::kperf
