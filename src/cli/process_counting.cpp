#include "cli/process_counting.hpp"

#include <new>

#include "capi/handles.hpp"
#include "cli/cli_error.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"

namespace kpc_cli {

ProcessCounting::ProcessCounting(kp_sampler_t *sampler, const std::vector<const kp_event_t *> &events,
                                 const std::vector<int> &groups, pid_t pid) {
    // kp_event_t is kpc::Event: the events from kp_sampler_event_find are the core's own.
    std::vector<const kpc::Event *> core_events(events.begin(), events.end());
    if (core_events.empty()) return;  // nothing to attach; read() reports nothing
    try {
        kpc::Session &session = *sampler->session;
        if (session.released())
            throw CliError("the counting session was released", kExitStatFailed);
        counters_ = session.backend().open_process_grouped(core_events, groups, static_cast<int>(pid));
    } catch (const kpc::Error &e) {
        throw CliError(std::string("cannot count the command: ") + e.what(), kExitStatFailed);
    } catch (const std::bad_alloc &) {
        throw CliError("out of memory", kExitStatFailed);
    }
}

ProcessCounting::~ProcessCounting() = default;

void ProcessCounting::child_exited() noexcept {
    if (counters_) counters_->child_exited();
}

std::vector<ProcessEventCount> ProcessCounting::read() {
    if (!counters_) return {};
    try {
        std::vector<ProcessEventCount> counts = counters_->read();
        for (ProcessEventCount &c : counts)
            if (c.source.empty()) c.source = counters_->source();
        return counts;
    } catch (const kpc::Error &e) {
        throw CliError(std::string("cannot read the counters: ") + e.what(), kExitStatFailed);
    }
}

bool ProcessCounting::system_wide() const { return counters_ && counters_->system_wide(); }

}  // namespace kpc_cli
