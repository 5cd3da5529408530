#include "backends/kperf/system_counters.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <utility>

#include "backends/kperf/kperf_errors.hpp"
#include "core/error.hpp"

namespace kpc::kperf {

SystemCounters::SystemCounters(const kp_kperf_api_t &api, std::shared_ptr<KernelState> kernel,
                               const void *session, const std::atomic<bool> &released,
                               KpcProgram prog)
    : api_(api), kernel_(std::move(kernel)), session_(session), released_(released),
      prog_(std::move(prog)), done_(prog_.index.size(), 0) {
    per_cpu_ = api_.kpc_get_counter_count(prog_.classes);
    if (per_cpu_ == 0 || per_cpu_ > KP_KPC_MAX_COUNTERS) {
        int err = errno;
        fail(KP_EKERNEL, "kperf: kpc_get_counter_count reported " + std::to_string(per_cpu_) +
                             " counters for the configuration " + errno_text(err), err);
    }
    for (uint32_t slot : prog_.index)
        if (slot >= per_cpu_)
            fail(KP_ELAYOUT, "kperf: counter slot " + std::to_string(slot) + " is beyond the " +
                                 std::to_string(per_cpu_) + " counters kpc reports per CPU");
    long conf = sysconf(_SC_NPROCESSORS_CONF), onln = sysconf(_SC_NPROCESSORS_ONLN);
    size_t ncpu = static_cast<size_t>(std::max({conf, onln, 1L}));
    // One spare block: the kernel writes one block per CPU it knows of.
    buf_.assign((ncpu + 1) * per_cpu_, 0);
    start();
}

void SystemCounters::start() {
    kernel_->start(api_, this, session_, released_, prog_);
    if (int err = snapshot(before_)) {
        try {
            kernel_->stop(api_, this);
        } catch (...) {
            // The snapshot failure is the error to report.
        }
        throw_kpc("kpc_get_cpu_counters", err);
    }
    running_ = true;
}

void SystemCounters::stop() {
    if (!running_) return;
    running_ = false;
    std::vector<uint64_t> now;
    int err = kernel_->counting(this) ? snapshot(now) : 0;
    if (err == 0 && !now.empty())
        for (size_t i = 0; i < done_.size(); ++i) done_[i] += now[i] - before_[i];
    kernel_->stop(api_, this);  // false (nothing to do) when the sampler was released
    if (err != 0) throw_kpc("kpc_get_cpu_counters", err);
}

SystemCounters::~SystemCounters() {
    try {
        kernel_->stop(api_, this);
    } catch (...) {
        // Destruction cannot report.
    }
}

int SystemCounters::snapshot(std::vector<uint64_t> &sums) {
    std::fill(buf_.begin(), buf_.end(), 0);
    int curcpu = 0;
    if (api_.kpc_get_cpu_counters(true, prog_.classes, &curcpu, buf_.data()) != 0) return errno;
    sums.assign(prog_.index.size(), 0);
    const size_t blocks = buf_.size() / per_cpu_;
    for (size_t cpu = 0; cpu < blocks; ++cpu)
        for (size_t i = 0; i < sums.size(); ++i) sums[i] += buf_[cpu * per_cpu_ + prog_.index[i]];
    return 0;
}

std::vector<ProcessCount> SystemCounters::read() {
    std::vector<ProcessCount> out(prog_.index.size());
    if (running_ && !kernel_->counting(this)) {
        for (ProcessCount &c : out) {
            c.status = KP_ESTATE;
            c.error = "the sampler was released before the counts were read";
        }
        return out;
    }
    std::vector<uint64_t> now;
    int err = running_ ? snapshot(now) : 0;
    if (err != 0) {
        std::string msg;
        int status = kpc_status("kpc_get_cpu_counters", err, &msg);
        for (ProcessCount &c : out) {
            c.status = status;
            c.error = msg;
        }
        return out;
    }
    for (size_t i = 0; i < out.size(); ++i) {
        out[i].counted = true;
        out[i].value = done_[i] + (running_ ? now[i] - before_[i] : 0);
    }
    return out;
}

}  // namespace kpc::kperf
