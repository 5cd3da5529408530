// The object behind kp_thread_t: an event set bound to the thread that created it.
#pragma once

#include <pthread.h>

#include <memory>
#include <vector>

#include "core/backend.hpp"
#include "core/session.hpp"

namespace kpc {

class CountingThread {
public:
    // Resolves nothing: `events` come from session->resolve(). Opens the backend counters
    // on the calling thread, which becomes the owner. Throws kpc::Error.
    CountingThread(std::shared_ptr<Session> session, std::vector<const Event *> events);
    ~CountingThread();  // stops counting if running; any thread

    bool on_owner_thread() const noexcept { return pthread_equal(owner_, pthread_self()) != 0; }
    void start();
    void stop();
    bool running() const noexcept { return running_; }
    const std::vector<const Event *> &events() const noexcept { return events_; }
    // Hot path: checks state, then reads. No allocation, no exceptions.
    int sample(uint64_t *values, uint8_t *complete, size_t count, uint64_t *enabled_ns,
               uint64_t *running_ns) noexcept;

private:
    std::shared_ptr<Session> session_;
    std::vector<const Event *> events_;
    std::unique_ptr<ThreadCounters> counters_;
    pthread_t owner_;
    bool running_ = false;
    bool started_once_ = false;
};

}  // namespace kpc
