#include "cli/check_counter.hpp"

#include "cli/check_workloads.hpp"
#include "cli/cli_error.hpp"

namespace kpc_cli {

EventCounter::EventCounter(kp_sampler_t *s, const char *event) {
    const char *names[] = {event};
    kp_error_clear();
    int rc = kp_thread_new(&t_, s, names, 1);
    if (rc == KP_OK) {
        counts_kernel_ = kp_event_counts_kernel(kp_thread_event_at(t_, 0));
        rc = kp_thread_start(t_);
    }
    if (rc != KP_OK) {
        reason_ = last_kp_error(rc);
        kp_thread_free(t_);
        t_ = nullptr;
    }
}

Measurement EventCounter::measure(const std::function<void()> &work) {
    uint64_t before = 0, after = 0;
    int rc = kp_thread_sample(t_, &before, 1);
    uint64_t cpu0 = thread_cpu_ns();
    if (rc == KP_OK) {
        work();
        uint64_t cpu1 = thread_cpu_ns();
        rc = kp_thread_sample(t_, &after, 1);
        if (rc == KP_OK)
            return {static_cast<double>(after - before), static_cast<double>(cpu1 - cpu0)};
    }
    throw CliError("reading the counter failed: " + last_kp_error(rc), kExitError);
}

Measurement EventCounter::min_of(int runs, const std::function<void()> &work) {
    Measurement best = measure(work);
    for (int i = 1; i < runs; ++i) {
        Measurement m = measure(work);
        if (m.count < best.count) best = m;
    }
    return best;
}

}  // namespace kpc_cli
