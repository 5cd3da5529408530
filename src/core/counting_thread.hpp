// The object behind kp_thread_t: an event set bound to the thread that created it.
#pragma once

#include <pthread.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/backend.hpp"
#include "core/session.hpp"

// The owner check runs on every sample. With glibc on x86-64 and AArch64 the thread
// pointer identifies the thread exactly as pthread_self() does (glibc's pthread_self()
// returns it on x86-64, and it minus a constant on AArch64), and reading it is one
// instruction instead of a call through the PLT; elsewhere pthread_equal(pthread_self()).
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__)) && defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
#define KPC_THREAD_TAG_IS_THREAD_POINTER 1
#endif
#endif
#ifndef KPC_THREAD_TAG_IS_THREAD_POINTER
#define KPC_THREAD_TAG_IS_THREAD_POINTER 0
#endif

namespace kpc {

class CountingThread {
public:
    // Resolves nothing: `events` come from session->resolve(). Opens the backend counters
    // on the calling thread, which becomes the owner. Throws kpc::Error.
    CountingThread(std::shared_ptr<Session> session, std::vector<const Event *> events);
    ~CountingThread();  // stops counting if running; any thread

    bool on_owner_thread() const noexcept { return same_thread(owner_, current_thread()); }
    void start();
    void stop();
    bool running() const noexcept { return running_; }
    const std::vector<const Event *> &events() const noexcept { return events_; }
    // Hot path: checks state, then reads. No allocation, no exceptions. Inline, so the
    // C entry point reaches the backend's read with one call fewer (each frame between the
    // caller and the syscall costs a mispredicted return under the kernel's mitigations).
    // One comparison covers both "buffer too small" and "never started" (refuse_up_to_ is
    // the largest count refused: SIZE_MAX until the first start, then events - 1);
    // sample_refused() tells them apart.
    // kp_thread_sample asks for neither times nor `complete`: it ends in a tail call to the
    // backend's read_values() and keeps no frame. Otherwise the backend writes the times
    // into members, not locals, so no frame is needed for them either.
    int sample(uint64_t *values, uint8_t *complete, size_t count, uint64_t *enabled_ns,
               uint64_t *running_ns) noexcept {
        if (__builtin_expect(count <= refuse_up_to_ || session_->released(), 0))
            return sample_refused(count);
        // kp_thread_sample passes constant nulls, so this test folds away there.
        if (!complete && !enabled_ns && !running_ns) return counters_->read_values(values);
        if (enabled_ns || running_ns) times_[0] = times_[1] = 0;  // 0 if the read fails
        int rc = counters_->read(values, complete, &times_[0], &times_[1]);
        if (enabled_ns) *enabled_ns = times_[0];
        if (running_ns) *running_ns = times_[1];
        return rc;
    }

private:
#if KPC_THREAD_TAG_IS_THREAD_POINTER
    using ThreadTag = void *;
    static ThreadTag current_thread() noexcept { return __builtin_thread_pointer(); }
    static bool same_thread(ThreadTag a, ThreadTag b) noexcept { return a == b; }
#else
    using ThreadTag = pthread_t;
    static ThreadTag current_thread() noexcept { return pthread_self(); }
    static bool same_thread(ThreadTag a, ThreadTag b) noexcept { return pthread_equal(a, b) != 0; }
#endif

    // Records why sample() cannot read; out of line and cold, so the hot path keeps no
    // frame for it.
    __attribute__((cold, noinline)) int sample_refused(size_t count) const noexcept;

    std::shared_ptr<Session> session_;
    std::vector<const Event *> events_;
    std::unique_ptr<ThreadCounters> counters_;
    size_t refuse_up_to_ = SIZE_MAX;  // events_.size() - 1 once started (never 0 events)
    uint64_t times_[2] = {0, 0};      // the backend's enabled/running ns of the last read
    ThreadTag owner_;  // the thread that created the handle
    bool running_ = false;
};

}  // namespace kpc
