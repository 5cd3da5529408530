#include "backends/kperf/thread_counters.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
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

namespace {

// KperfThreadCounters::hot_.read_fn while the handle is stopped: "fails" without calling
// the framework, so read() takes its slow path, which returns the stopped totals.
int stopped_read(uint32_t, uint32_t, uint64_t *) noexcept { return -1; }

}  // namespace

KperfThreadCounters::KperfThreadCounters(const kp_kperf_api_t &api,
                                         std::shared_ptr<KernelState> kernel,
                                         const void *session, const std::atomic<bool> &released,
                                         KpcProgram prog)
    : api_(api), kernel_(std::move(kernel)), session_(session), released_(released),
      prog_(std::move(prog)) {
    n_ = prog_.index.size();
    if (n_ == 0 || n_ > KP_KPC_MAX_COUNTERS)
        fail(KP_ERROR, "kperf: internal error: " + std::to_string(n_) +
                           " counters for one kp_thread_t (1 to 32 fit); please report this");
    for (size_t i = 0; i < n_; ++i) hot_.copy.index[i] = prog_.index[i];
    hot_.read_fn = stopped_read;
}

KperfThreadCounters::~KperfThreadCounters() {
    try {
        kernel_->stop(api_, this);
    } catch (...) {
        // Freeing cannot fail; the sampler's release stops counting as a last resort.
    }
}

int KperfThreadCounters::fetch() noexcept {
    if (api_.kpc_get_thread_counters(0, KP_KPC_MAX_COUNTERS, hot_.copy.buf) == 0) return 0;
    return errno;
}

int KperfThreadCounters::fetch_claiming_buffer() noexcept {
    int err = fetch();
    // EINVAL: this thread has no counter buffer yet. XNU gives one at the thread's next
    // context switch, or to a thread that enables thread counting itself, and a failed
    // read allocates nothing, so retrying at once fails too (kpc_thread.c). Enable it from
    // this thread, then, if a kernel still holds back, let a short sleep switch it out.
    for (int attempt = 0; err == EINVAL && attempt < kBufferAttempts; ++attempt) {
        if (attempt == 0) {
            if (int claim = kernel_->claim_thread_buffer(api_)) return claim;
        } else {
            usleep(100);
        }
        err = fetch();
    }
    return err;
}

void KperfThreadCounters::start() {
    if (running_) return;
    kernel_->start(api_, this, session_, released_, prog_);
    if (int err = fetch_claiming_buffer()) {
        try {
            kernel_->stop(api_, this);
        } catch (...) {
            // The read failure is the error to report.
        }
        if (err == EINVAL)
            fail(KP_EKERNEL,
                 "kperf: the kernel gave this thread no counter buffer (kpc_get_thread_counters "
                 "kept failing with EINVAL after the thread enabled thread counting itself); "
                 "please report this with the output of 'kpc check'",
                 err);
        throw_kpc("kpc_get_thread_counters", err);
    }
    for (size_t i = 0; i < n_; ++i) {
        base_[i] = hot_.copy.buf[hot_.copy.index[i]];
        hot_.copy.offset[i] = total_[i] - base_[i];
    }
    running_ = true;
    hot_.read_fn = api_.kpc_get_thread_counters;
}

void KperfThreadCounters::stop() {
    if (!running_) return;
    running_ = false;
    hot_.read_fn = stopped_read;
    int err = 0;
    if (kernel_->counting(this)) {  // false once the sampler was released
        err = fetch();
        if (err == 0)
            for (size_t i = 0; i < n_; ++i)
                total_[i] += hot_.copy.buf[hot_.copy.index[i]] - base_[i];
        else if (err == EINVAL)
            err = 0;  // the thread never got a counter buffer: it counted nothing
    }
    kernel_->stop(api_, this);
    if (err != 0) throw_kpc("kpc_get_thread_counters", err);
}

int KperfThreadCounters::read(uint64_t *values, uint8_t *complete, uint64_t *enabled_ns,
                              uint64_t *running_ns) noexcept {
    return read_never_multiplexed(*this, n_, values, complete, enabled_ns, running_ns);
}

int KperfThreadCounters::read_values(uint64_t *values) noexcept {
    if (__builtin_expect(hot_.read_fn(0, KP_KPC_MAX_COUNTERS, hot_.copy.buf) != 0, 0))
        return read_after_failure(values);
    copy_counters(hot_.copy, n_, values);
    return KP_OK;
}

__attribute__((noinline)) int KperfThreadCounters::read_after_failure(uint64_t *values) noexcept {
    if (!running_) {
        for (size_t i = 0; i < n_; ++i) values[i] = total_[i];
        return KP_OK;
    }
    int err = errno;
    if (err == EINVAL && api_.kpc_get_thread_counters(0, KP_KPC_MAX_COUNTERS, hot_.copy.buf) == 0) {
        copy_counters(hot_.copy, n_, values);
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
