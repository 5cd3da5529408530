// One kp_thread_t's events on Apple: the kernel's per-thread counters, read with
// kpc_get_thread_counters. Those counters run whenever thread counting is on (for any
// handle), so each handle keeps a base taken at start and adds up its own started
// intervals: values are running totals of this thread while this handle was started.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "backends/kperf/counter_copy.hpp"
#include "backends/kperf/kernel_state.hpp"
#include "backends/kperf/kpc_program.hpp"
#include "core/backend.hpp"
#include "kpc/kperf_raw.h"

namespace kpc::kperf {

class KperfThreadCounters final : public ThreadCounters {
public:
    // `api` and `released` belong to the backend, which outlives this object.
    KperfThreadCounters(const kp_kperf_api_t &api, std::shared_ptr<KernelState> kernel,
                        const void *session, const std::atomic<bool> &released, KpcProgram prog);
    ~KperfThreadCounters() override;
    KperfThreadCounters(const KperfThreadCounters &) = delete;  // KernelState keys on `this`
    KperfThreadCounters &operator=(const KperfThreadCounters &) = delete;
    void start() override;
    void stop() override;
    int read(uint64_t *values, uint8_t *complete, uint64_t *enabled_ns,
             uint64_t *running_ns) noexcept override;
    // kp_thread_sample's read: no `complete`, no times (kpc measures none).
    int read_values(uint64_t *values) noexcept override;

private:
    // kpc_get_thread_counters into hot_.copy.buf. Returns 0 or the errno.
    int fetch() noexcept;
    // fetch(), first giving this thread a counter buffer if it has none (start()).
    int fetch_claiming_buffer() noexcept;
    static constexpr int kBufferAttempts = 4;
    // read_values() when the framework call failed or the handle is stopped.
    int read_after_failure(uint64_t *values) noexcept;

    const kp_kperf_api_t &api_;
    std::shared_ptr<KernelState> kernel_;
    const void *session_;
    const std::atomic<bool> &released_;
    KpcProgram prog_;
    bool running_ = false;
    size_t n_ = 0;                              // events, 1..KP_KPC_MAX_COUNTERS
    uint64_t base_[KP_KPC_MAX_COUNTERS] = {};   // counter values at the last start
    uint64_t total_[KP_KPC_MAX_COUNTERS] = {};  // accumulated over finished intervals

    // What read_values() touches: the framework's buffer and what the copy adds to it.
    struct Hot {
        CopyBlock copy;  // buf, offset = total_ - base_ (mod 2^64), index
        // kpc_get_thread_counters while running; while stopped, a stub that fails without
        // calling anything. The one load that picks the function also tells the state.
        int (*read_fn)(uint32_t, uint32_t, uint64_t *) = nullptr;
    } hot_;
};

// Record the error a failed kpc_get_*_counters call gives the hot path; never throws.
int record_read_error(const char *call, int err) noexcept;

}  // namespace kpc::kperf
