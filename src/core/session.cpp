#include "core/session.hpp"

#include <string>

#include "core/error.hpp"
#include "core/event_modifiers.hpp"

namespace kpc {

Session::Session(const BackendConfig &config) : backend_(make_backend(config)) {
    backend_->populate(events_);
}

Session::~Session() {
    try {
        release();
    } catch (...) {
        // Destruction cannot report; release() has already restored what it could.
    }
}

const Event *Session::resolve(std::string_view name) {
    if (name.size() > kMaxNameLength)
        fail(KP_EINVAL, "event name '" + std::string(name.substr(0, 32)) + "...' is longer than " +
                            std::to_string(kMaxNameLength) + " bytes; event names are at most " +
                            std::to_string(kMaxNameLength) +
                            " bytes (run 'kpc list' to see every event)");
    if (const Event *e = events_.find(name)) return e;
    Event dynamic;
    EventModifiers mods;
    if (parse_event_modifiers(name, mods)) {
        const Event *base = resolve(mods.base);
        if (base->modified)
            fail(KP_EUNKNOWN_EVENT, "event '" + std::string(name) +
                                        "': give the modifiers once, after the event (e.g. "
                                        "instructions:uk)");
        Event modified = *base;
        modified.name = std::string(name);
        modified.lookup_key = modified.name;
        modified.looked_up = true;
        modified.generic = false;
        modified.modified = true;
        modified.exclude_user = !mods.user;
        modified.exclude_kernel = !mods.kernel;
        modified.counts_kernel = mods.kernel;
        backend_->apply_modifiers(modified);
        return events_.add_looked_up(std::move(modified));
    }
    // After the modifiers: libpfm4 would take "page-faults:u" itself and drop the ":u".
    if (backend_->resolve_dynamic(name, dynamic)) return events_.add_looked_up(std::move(dynamic));
    std::string msg = "unknown event '" + std::string(name) + "' for the " + backend_->name() +
                      " backend";
    std::string close = events_.suggest(name);
    if (!close.empty()) msg += "; did you mean: " + close + "?";
    std::string hint = backend_->unknown_event_hint();
    if (!hint.empty()) msg += "; " + hint;
    msg += " (run 'kpc list' to see every event)";
    fail(KP_EUNKNOWN_EVENT, msg);
}

std::vector<const Event *> Session::resolve_set(const std::vector<std::string_view> &names) {
    std::vector<const Event *> events;
    events.reserve(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
        const Event *e = resolve(names[i]);
        for (size_t j = 0; j < i; ++j) {
            if (names[j] == names[i])
                fail(KP_EINVAL, "event '" + std::string(names[i]) +
                                    "' is listed twice; list each event once");
            if (same_counter(*events[j], *e))
                fail(KP_EINVAL, "'" + std::string(names[j]) + "' and '" + std::string(names[i]) +
                                    "' are the same counter; list it once");
        }
        events.push_back(e);
    }
    return events;
}

bool Session::same_counter(const Event &a, const Event &b) const {
    if (&a == &b) return true;
    switch (backend_->kind()) {
    case KP_BACKEND_KPERF:
        return a.native && a.native == b.native;
    case KP_BACKEND_PERF_EVENT:
        return a.perf_type == b.perf_type && a.perf_config == b.perf_config &&
               a.perf_config1 == b.perf_config1 && a.perf_config2 == b.perf_config2 &&
               a.modified == b.modified && a.exclude_user == b.exclude_user &&
               a.exclude_kernel == b.exclude_kernel;
    default:
        return false;
    }
}

void Session::release() {
    std::lock_guard<std::mutex> lock(release_mu_);
    if (released_.load(std::memory_order_acquire)) return;
    released_.store(true, std::memory_order_release);
    backend_->release();
}

}  // namespace kpc
