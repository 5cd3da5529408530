// A counting session: the object behind kp_sampler_t, shared by every kp_thread_t made
// from it so that handles can be freed in any order.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string_view>

#include "core/backend.hpp"
#include "core/event_database.hpp"

namespace kpc {

class Session {
public:
    explicit Session(const BackendConfig &config);
    ~Session();
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    Backend &backend() { return *backend_; }
    const Backend &backend() const { return *backend_; }
    EventDatabase &events() { return events_; }
    const EventDatabase &events() const { return events_; }

    // Database lookup, then the backend's dynamic names; throws KP_EUNKNOWN_EVENT with
    // suggestions when neither knows the name.
    const Event *resolve(std::string_view name);

    bool released() const noexcept { return released_.load(std::memory_order_acquire); }
    void release();

private:
    std::unique_ptr<Backend> backend_;
    EventDatabase events_;
    std::mutex release_mu_;
    std::atomic<bool> released_{false};
};

}  // namespace kpc
