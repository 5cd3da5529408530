// `kpc stat` on kperf when libSystem can tell a process's own totals (proc_pid_rusage): the
// fixed counters' events (cycles, instructions) come from the command's own totals, read
// while it runs and, at its end, before it is reaped, as on the recount backend; the other
// events stay system-wide (SystemCounters), since kpc cannot attach counters to another
// process. Both halves read while running and pause together. Each count says where it
// came from (ProcessCount::source).
#pragma once

#include <memory>
#include <vector>

#include "backends/apple/libsystem.hpp"
#include "backends/apple/process_totals.hpp"
#include "backends/kperf/system_counters.hpp"
#include "core/backend.hpp"

namespace kpc::kperf {

class SplitProcessCounters final : public ProcessCounters {
public:
    // `own[i]` / `system[i]`: the positions, in the events given to open_process, of the
    // counts `rusage` / `system_wide` return in order. `system_wide` may be null (every
    // event is a process total). `lib` is what `rusage` reads through.
    SplitProcessCounters(std::unique_ptr<apple::LibSystem> lib,
                         std::unique_ptr<apple::RusageProcessCounters> rusage,
                         std::vector<size_t> own, std::unique_ptr<SystemCounters> system_wide,
                         std::vector<size_t> system);
    void child_exited() noexcept override { rusage_->child_exited(); }
    std::vector<ProcessCount> read() override;
    bool system_wide() const override { return system_ != nullptr; }
    bool reads_while_running() const override {
        return rusage_->reads_while_running() && (!system_ || system_->reads_while_running());
    }
    bool can_pause() const override {
        return rusage_->can_pause() && (!system_ || system_->can_pause());
    }
    void stop() override;
    void start() override;
    const char *source() const override { return system_ ? "system" : rusage_->source(); }
    const char *event_source(size_t index) const override;

private:
    std::unique_ptr<apple::LibSystem> lib_;  // declared first: outlives rusage_
    std::unique_ptr<apple::RusageProcessCounters> rusage_;
    std::vector<size_t> own_;
    std::unique_ptr<SystemCounters> system_;
    std::vector<size_t> system_at_;
};

}  // namespace kpc::kperf
