// The object behind kp_thread_t: an event set bound to the thread that created it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/backend.hpp"
#include "core/session.hpp"

// The owner check runs on every sample, so the token it compares is a plain thread-local
// word. glibc's initial-exec model makes its read one %fs-relative load (no call to
// __tls_get_addr); 8 bytes fit in the static TLS that glibc reserves for dlopen'ed libraries.
#if defined(__GLIBC__) && defined(__ELF__)
#define KPC_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define KPC_TLS_MODEL
#endif

namespace kpc {

// Names the calling thread for its whole life and no thread after it: 0 until the thread
// creates its first handle, then a number never handed out before. pthread_t and the thread
// pointer cannot serve: glibc gives both to a new thread once the old one is joined.
extern __thread uint64_t tls_thread_token KPC_TLS_MODEL;

class CountingThread {
public:
    // Resolves nothing: `events` come from session->resolve(). Opens the backend counters
    // on the calling thread, which becomes the owner. Throws kpc::Error.
    CountingThread(std::shared_ptr<Session> session, std::vector<const Event *> events);
    ~CountingThread();  // stops counting if running; any thread

    bool on_owner_thread() const noexcept { return owner_ == tls_thread_token; }
    void start();
    void stop();
    bool running() const noexcept { return running_; }
    const std::vector<const Event *> &events() const noexcept { return events_; }
    // kp_thread_user_reads_reason: "" when samples are read in user space.
    const char *user_reads_refusal() const noexcept { return counters_->user_reads_refusal(); }
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
    // Records why sample() cannot read; out of line and cold, so the hot path keeps no
    // frame for it.
    __attribute__((cold, noinline)) int sample_refused(size_t count) const noexcept;

    std::shared_ptr<Session> session_;
    std::vector<const Event *> events_;
    std::unique_ptr<ThreadCounters> counters_;
    size_t refuse_up_to_ = SIZE_MAX;  // events_.size() - 1 once started (never 0 events)
    uint64_t times_[2] = {0, 0};      // the backend's enabled/running ns of the last read
    uint64_t owner_;  // tls_thread_token of the thread that created the handle (never 0)
    bool running_ = false;
};

}  // namespace kpc
