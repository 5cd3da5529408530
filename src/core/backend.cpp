// The defaults of core/backend.hpp's interfaces: what a backend that overrides nothing
// cannot do, each saying so.
#include "core/backend.hpp"

#include <string>

#include "core/error.hpp"

namespace kpc {

std::unique_ptr<ProcessCounters> Backend::count_process(const ProcessTarget &target,
                                                        const std::vector<const Event *> &,
                                                        const std::vector<int> &) {
    const std::string backend = std::string("the ") + name() + " backend";
    switch (target.kind) {
        case ProcessTarget::Kind::spawned:
            fail(KP_EUNSUPPORTED, backend + " cannot count another process");
        case ProcessTarget::Kind::attached:
            fail(KP_EUNSUPPORTED, backend +
                                      " cannot count a process that is already running; "
                                      "kp_process_spawn counts a command it starts");
        case ProcessTarget::Kind::every_cpu:
            break;
    }
    fail(KP_EUNSUPPORTED, backend + " cannot count every CPU (system-wide)" +
                              (kind() == KP_BACKEND_RECOUNT
                                   ? ": macOS gives an unprivileged process only per-process "
                                     "totals; run as root to use the kperf backend"
                                   : ""));
}

void Backend::apply_modifiers(Event &e) const {
    fail(KP_EUNSUPPORTED, "event '" + e.name + "': the " + std::string(name()) +
                              " backend does not take perf's :u/:k modifiers (it cannot choose "
                              "the modes an event counts); name the event without them "
                              "(docs/events.md says what each backend counts)");
}

std::vector<ProcessCount> ProcessCounters::read_thread(size_t index, int &) {
    fail(KP_EINVAL, "thread index " + std::to_string(index) +
                        " is out of range: these counters have no per-thread counts");
}

}  // namespace kpc
