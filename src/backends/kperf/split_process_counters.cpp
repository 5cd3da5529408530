#include "backends/kperf/split_process_counters.hpp"

#include <utility>

namespace kpc::kperf {

SplitProcessCounters::SplitProcessCounters(std::unique_ptr<recount::LibSystem> lib,
                                           std::unique_ptr<recount::RusageProcessCounters> rusage,
                                           std::vector<size_t> own,
                                           std::unique_ptr<SystemCounters> system_wide,
                                           std::vector<size_t> system)
    : lib_(std::move(lib)), rusage_(std::move(rusage)), own_(std::move(own)),
      system_(std::move(system_wide)), system_at_(std::move(system)) {}

ProcessCapabilities SplitProcessCounters::capabilities() const {
    ProcessCapabilities caps = rusage_->capabilities();
    if (system_) {
        const ProcessCapabilities sys = system_->capabilities();
        caps.reads_while_running = caps.reads_while_running && sys.reads_while_running;
        caps.can_pause = caps.can_pause && sys.can_pause;
        caps.scope = sys.scope;
    }
    return caps;
}

kp_process_scope_t SplitProcessCounters::event_scope(size_t index) const {
    for (size_t own : own_)
        if (own == index) return rusage_->capabilities().scope;
    return capabilities().scope;
}

// Both halves stop, even if one fails; the first failure is reported.
void SplitProcessCounters::stop() {
    if (!system_) return rusage_->stop();
    try {
        rusage_->stop();
    } catch (...) {
        system_->stop();
        throw;
    }
    system_->stop();
}

// Both halves or neither: a failed second start stops the first again.
void SplitProcessCounters::start() {
    rusage_->start();
    if (!system_) return;
    try {
        system_->start();
    } catch (...) {
        try {
            rusage_->stop();
        } catch (...) {
            // The start's failure is the one to report.
        }
        throw;
    }
}

std::vector<ProcessCount> SplitProcessCounters::read() {
    std::vector<ProcessCount> out(own_.size() + system_at_.size());
    std::vector<ProcessCount> own = rusage_->read();
    for (size_t i = 0; i < own_.size(); ++i) {
        out[own_[i]] = std::move(own[i]);
    }
    if (system_) {
        std::vector<ProcessCount> sys = system_->read();
        for (size_t i = 0; i < system_at_.size(); ++i) {
            out[system_at_[i]] = std::move(sys[i]);
        }
    }
    return out;
}

}  // namespace kpc::kperf
