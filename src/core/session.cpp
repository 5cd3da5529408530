#include "core/session.hpp"

#include <string>

#include "core/error.hpp"

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
    if (const Event *e = events_.find(name)) return e;
    Event dynamic;
    if (backend_->resolve_dynamic(name, dynamic)) return events_.add(std::move(dynamic));
    std::string msg = "unknown event '" + std::string(name) + "' for the " + backend_->name() +
                      " backend";
    std::string close = events_.suggest(name);
    if (!close.empty()) msg += "; did you mean: " + close + "?";
    msg += " (run 'kpc list' to see every event)";
    fail(KP_EUNKNOWN_EVENT, msg);
}

void Session::release() {
    std::lock_guard<std::mutex> lock(release_mu_);
    if (released_.load(std::memory_order_acquire)) return;
    released_.store(true, std::memory_order_release);
    backend_->release();
}

}  // namespace kpc
