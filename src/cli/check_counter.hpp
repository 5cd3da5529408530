// kpc check: one event counted on the calling thread around workloads, through the public
// C API (a kp_thread_t of that one event, started once, sampled around each run).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "kpc/kpc.h"

namespace kpc_cli {

// What one run of a workload moved: the event's count and the thread's CPU time.
struct Measurement {
    double count = 0;
    double cpu_ns = 0;
};

class EventCounter {
public:
    // Opens and starts `event` for the calling thread. On failure ok() is false and
    // reason() holds libkpc's message (unavailable event, no permission, ...).
    EventCounter(kp_sampler_t *s, const char *event);
    ~EventCounter() { kp_thread_free(t_); }
    EventCounter(const EventCounter &) = delete;
    EventCounter &operator=(const EventCounter &) = delete;

    bool ok() const { return t_ != nullptr; }
    const std::string &reason() const { return reason_; }
    // kp_event_counts_kernel() of the event: 1, 0, or -1 when it could not be opened.
    int counts_kernel() const { return counts_kernel_; }

    // Runs `work` once between two samples. Throws CliError if a sample fails.
    Measurement measure(const std::function<void()> &work);
    // The smallest count over `runs` runs (noise such as interrupts only ever adds), with
    // the CPU time of that run.
    Measurement min_of(int runs, const std::function<void()> &work);

private:
    kp_thread_t *t_ = nullptr;
    std::string reason_;
    int counts_kernel_ = -1;
};

}  // namespace kpc_cli
