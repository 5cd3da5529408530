#include "core/counting_thread.hpp"

#include <atomic>
#include <string>

#include "core/error.hpp"

namespace kpc {

__thread uint64_t tls_thread_token KPC_TLS_MODEL = 0;

namespace {

// The calling thread's token, handed out on first use. 64 bits never wrap in practice.
uint64_t calling_thread_token() noexcept {
    static std::atomic<uint64_t> last{0};
    if (tls_thread_token == 0) tls_thread_token = last.fetch_add(1, std::memory_order_relaxed) + 1;
    return tls_thread_token;
}

}  // namespace

CountingThread::CountingThread(std::shared_ptr<Session> session, std::vector<const Event *> events)
    : session_(std::move(session)), events_(std::move(events)), owner_(calling_thread_token()) {
    if (session_->released())
        fail(KP_ESTATE, "the sampler was released (kp_sampler_release); create a new sampler to count again");
    counters_ = session_->backend().open(events_);
    events_ = session_->counted(std::move(events_));
    reserve_error_message();  // the owner's sample statuses then record without allocating
}

CountingThread::~CountingThread() {
    if (running_) {
        try {
            counters_->stop();
        } catch (...) {
            // Freeing cannot fail; the backend restores global state when the session ends.
        }
    }
}

void CountingThread::start() {
    if (session_->released())
        fail(KP_ESTATE, "the sampler was released (kp_sampler_release); create a new sampler to count again");
    if (running_) return;
    counters_->start();
    running_ = true;
    refuse_up_to_ = events_.size() - 1;  // from now on sample() refuses small buffers only
}

void CountingThread::stop() {
    if (!running_) return;
    running_ = false;  // even if the backend fails, the handle is no longer counting
    if (!session_->released()) counters_->stop();
}

int CountingThread::sample_refused(size_t count) const noexcept {
    if (count < events_.size())
        return record_error(KP_EBUFSIZE, "kp_thread_sample: the values buffer holds fewer elements "
                                         "than the handle has events (see kp_thread_event_count)");
    if (session_->released())
        return record_error(KP_ESTATE, "the sampler was released (kp_sampler_release); create a new "
                                       "sampler to count again");
    return record_error(KP_ESTATE, "kp_thread_sample before kp_thread_start: start the handle first");
}

}  // namespace kpc
