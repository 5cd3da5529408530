#include "backends/kperf/thread_counters.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "backends/kperf/kperf_errors.hpp"
#include "core/error.hpp"

namespace kpc::kperf {

int record_read_error(const char *call, int err) noexcept {
    char msg[512];
    int status = KP_EKERNEL;
    if (err == EBUSY) {
        status = KP_EBUSY;
        std::snprintf(msg, sizeof msg, "kperf: %s failed: %s [errno %d]", call, kBusyCauses, err);
    } else if (err == EPERM || err == EACCES) {
        status = KP_EPERM;
        std::snprintf(msg, sizeof msg,
                      "kperf: %s failed: permission denied; counting needs root (run with sudo) "
                      "[errno %d]", call, err);
    } else {
        std::snprintf(msg, sizeof msg, "kperf: %s failed: the kernel refused the read [errno %d: %s]",
                      call, err, std::strerror(err));
    }
    return record_error(status, msg, err);
}

KperfThreadCounters::KperfThreadCounters(const kp_kperf_api_t &api,
                                         std::shared_ptr<KernelState> kernel,
                                         const void *session, const std::atomic<bool> &released,
                                         KpcProgram prog)
    : api_(api), get_counters_(api.kpc_get_thread_counters), kernel_(std::move(kernel)), session_(session), released_(released),
      prog_(std::move(prog)), n_(prog_.index.size()) {
    for (size_t i = 0; i < n_; ++i) index_[i] = prog_.index[i];
}

KperfThreadCounters::~KperfThreadCounters() {
    try {
        kernel_->stop(api_, this);
    } catch (...) {
        // Freeing cannot fail; the sampler's release stops counting as a last resort.
    }
}

int KperfThreadCounters::fetch() noexcept {
    if (get_counters_(0, KP_KPC_MAX_COUNTERS, buf_) == 0) return 0;
    int err = errno;
    if (err != EINVAL) return err;
    // The first call on a thread may find no buffer yet; the kernel allocates it on the
    // way back to user space, so one retry is enough.
    if (get_counters_(0, KP_KPC_MAX_COUNTERS, buf_) == 0) return 0;
    return errno;
}

void KperfThreadCounters::start() {
    if (running_) return;
    kernel_->start(api_, this, session_, released_, prog_);
    int err = fetch();
    if (err == EINVAL) {
        // Still no buffer: the kernel starts this thread's counters from zero once it has one.
        std::memset(buf_, 0, sizeof buf_);
    } else if (err != 0) {
        try {
            kernel_->stop(api_, this);
        } catch (...) {
            // The read failure is the error to report.
        }
        throw_kpc("kpc_get_thread_counters", err);
    }
    for (size_t i = 0; i < n_; ++i) {
        base_[i] = buf_[index_[i]];
        offset_[i] = total_[i] - base_[i];
    }
    running_ = true;
}

void KperfThreadCounters::stop() {
    if (!running_) return;
    running_ = false;
    int err = 0;
    if (kernel_->counting(this)) {  // false once the sampler was released
        err = fetch();
        if (err == 0)
            for (size_t i = 0; i < n_; ++i) total_[i] += buf_[index_[i]] - base_[i];
        else if (err == EINVAL)
            err = 0;  // the thread never got a counter buffer: it counted nothing
    }
    kernel_->stop(api_, this);
    if (err != 0) throw_kpc("kpc_get_thread_counters", err);
}

int KperfThreadCounters::read(uint64_t *values, uint8_t *complete, uint64_t *enabled_ns,
                              uint64_t *running_ns) noexcept {
    // Apple's counters are never multiplexed, and kpc measures no enabled/running times.
    *enabled_ns = 0;
    *running_ns = 0;
    if (complete)
        for (size_t i = 0; i < n_; ++i) complete[i] = 1;
    if (__builtin_expect(running_ && get_counters_(0, KP_KPC_MAX_COUNTERS, buf_) == 0, 1)) {
        const size_t n = n_;  // a local: stores to values[] cannot alias it
        for (size_t i = 0; i < n; ++i) values[i] = buf_[index_[i]] + offset_[i];
        return KP_OK;
    }
    return read_after_failure(values);
}

__attribute__((noinline)) int KperfThreadCounters::read_after_failure(uint64_t *values) noexcept {
    if (!running_) {
        for (size_t i = 0; i < n_; ++i) values[i] = total_[i];
        return KP_OK;
    }
    int err = errno;
    if (err == EINVAL && get_counters_(0, KP_KPC_MAX_COUNTERS, buf_) == 0) {
        for (size_t i = 0; i < n_; ++i) values[i] = buf_[index_[i]] + offset_[i];
        return KP_OK;
    }
    if (err == EINVAL) err = errno;
    if (err == EINVAL) {  // still no counter buffer: nothing counted on this thread yet
        for (size_t i = 0; i < n_; ++i) values[i] = total_[i];
        return KP_OK;
    }
    return record_read_error("kpc_get_thread_counters", err);
}

}  // namespace kpc::kperf
