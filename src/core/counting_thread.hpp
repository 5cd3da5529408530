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
    // Hot path: checks state, then reads. No allocation, no exceptions. Inline, so the
    // C entry point reaches the backend's read with one call fewer (each frame between the
    // caller and the syscall costs a mispredicted return under the kernel's mitigations).
    int sample(uint64_t *values, uint8_t *complete, size_t count, uint64_t *enabled_ns,
               uint64_t *running_ns) noexcept {
        if (count < events_.size() || session_->released() || !started_once_)
            return sample_refused(count);
        uint64_t enabled = 0, run = 0;
        int rc = counters_->read(values, complete, &enabled, &run);
        if (enabled_ns) *enabled_ns = enabled;
        if (running_ns) *running_ns = run;
        return rc;
    }

private:
    int sample_refused(size_t count) const noexcept;  // records why sample() cannot read

    std::shared_ptr<Session> session_;
    std::vector<const Event *> events_;
    std::unique_ptr<ThreadCounters> counters_;
    pthread_t owner_;
    bool running_ = false;
    bool started_once_ = false;
};

}  // namespace kpc
