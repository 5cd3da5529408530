// `kpc stat` and kp_process_t on Apple: kpc cannot attach counters to another process, so
// this counts system-wide, summing every CPU's counters (kpc_get_cpu_counters) from its
// creation on, less the spans it was stopped. The totals include everything else the
// machine ran meanwhile (docs/apple.md).
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "backends/kperf/kernel_state.hpp"
#include "backends/kperf/kpc_program.hpp"
#include "core/backend.hpp"

namespace kpc::kperf {

class SystemCounters final : public ProcessCounters {
public:
    // Starts counting and takes the first snapshot; throws on failure.
    SystemCounters(const kp_kperf_api_t &api, std::shared_ptr<KernelState> kernel,
                   const void *session, const std::atomic<bool> &released, KpcProgram prog);
    ~SystemCounters() override;
    // The totals so far; counting goes on (the destructor ends it).
    std::vector<ProcessCount> read() override;
    ProcessCapabilities capabilities() const override {
        return {true, true, false, KP_PROCESS_SCOPE_SYSTEM};
    }
    void stop() override;
    void start() override;

private:
    // Per-event sums over every CPU; returns 0 or the errno.
    int snapshot(std::vector<uint64_t> &sums);

    const kp_kperf_api_t &api_;
    std::shared_ptr<KernelState> kernel_;
    const void *session_;
    const std::atomic<bool> &released_;
    KpcProgram prog_;
    size_t per_cpu_ = 0;  // counters per CPU block
    std::vector<uint64_t> buf_;
    std::vector<uint64_t> before_;  // the snapshot when counting last (re)started
    std::vector<uint64_t> done_;    // what the spans before the last stop counted
    bool running_ = false;
};

}  // namespace kpc::kperf
