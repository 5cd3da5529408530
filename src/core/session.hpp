// A counting session: the object behind kp_sampler_t, shared by every kp_thread_t made
// from it so that handles can be freed in any order.
#pragma once

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

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

    // The longest event name accepted, in bytes; longer ones are refused before any lookup.
    static constexpr size_t kMaxNameLength = KP_EVENT_NAME_MAX;
    // A C string as resolve() needs it, reading at most kMaxNameLength + 1 bytes: enough
    // to refuse a longer name without walking all of it.
    static std::string_view bounded_name(const char *name) noexcept {
        return std::string_view(name, strnlen(name, kMaxNameLength + 1));
    }

    // Database lookup, then the backend's dynamic names; throws KP_EINVAL for a name over
    // kMaxNameLength, KP_EUNKNOWN_EVENT with suggestions when no one knows the name.
    const Event *resolve(std::string_view name);
    // resolve() for each name of one event set, refusing (KP_EINVAL) a counter named twice,
    // by one name or by two (generic and native, alias, raw spellings). Names the backend
    // cannot count are left for it to refuse: duplicates are reported first.
    std::vector<const Event *> resolve_set(const std::vector<std::string_view> &names);
    // `events` once the backend has opened them: each as it is counted
    // (Backend::counted_instead), kept in the database so that the pointers stay valid.
    std::vector<const Event *> counted(std::vector<const Event *> events);

    bool released() const noexcept { return released_.load(std::memory_order_acquire); }
    void release();

private:
    // Whether two events are one counter: the same kpep event, or the same perf_event encoding.
    bool same_counter(const Event &a, const Event &b) const;

    std::unique_ptr<Backend> backend_;
    EventDatabase events_;
    std::mutex release_mu_;
    std::atomic<bool> released_{false};
};

}  // namespace kpc
