#include "backends/kperf/thread_counters.hpp"

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
    if (n_ <= KP_KPC_MAX_COUNTERS)
        for (size_t i = 0; i < n_; ++i) hot_.copy.index[i] = prog_.index[i];
    // Decided once per handle, from the count and the slots: the copy's routine is the
    // dispatch (counter_copy.hpp).
    hot_.copy_fn = select_copy(hot_.copy, n_, simd_copy_available());
    if (!hot_.copy_fn)  // n_ outside 1..KP_KPC_MAX_COUNTERS
        fail(KP_ERROR, "kperf: internal error: " + std::to_string(n_) +
                           " counters for one kp_thread_t (1 to 32 fit); please report this");
    hot_.read_fn = stopped_read;
    hot_.self = this;
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
    int err = errno;
    if (err != EINVAL) return err;
    // The first call on a thread may find no buffer yet; the kernel allocates it on the
    // way back to user space, so one retry is enough.
    if (api_.kpc_get_thread_counters(0, KP_KPC_MAX_COUNTERS, hot_.copy.buf) == 0) return 0;
    return errno;
}

void KperfThreadCounters::start() {
    if (running_) return;
    kernel_->start(api_, this, session_, released_, prog_);
    int err = fetch();
    if (err == EINVAL) {
        // Still no buffer: the kernel starts this thread's counters from zero once it has one.
        std::memset(hot_.copy.buf, 0, sizeof hot_.copy.buf);
    } else if (err != 0) {
        try {
            kernel_->stop(api_, this);
        } catch (...) {
            // The read failure is the error to report.
        }
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
    // Apple's counters are never multiplexed, and kpc measures no enabled/running times.
    *enabled_ns = 0;
    *running_ns = 0;
    if (complete)
        for (size_t i = 0; i < n_; ++i) complete[i] = 1;
    return read_values(values);
}

int KperfThreadCounters::read_values(uint64_t *values) noexcept {
    // Address the block through a pointer the compiler cannot relate to `this` (the
    // empty asm), so it keeps one register across the call instead of `this` and the
    // buffer's address; `values` and `this` wait in the block for the same reason.
    Hot *h = &hot_;
    asm("" : "+r"(h));
    h->copy.out = values;
    if (__builtin_expect(h->read_fn(0, KP_KPC_MAX_COUNTERS, h->copy.buf) != 0, 0))
        return h->self->read_after_failure(h->copy.out);
    // values[i] = buf[index[i]] + offset[i] for exactly n_ events, as a tail call.
    return h->copy_fn(&h->copy);
}

__attribute__((noinline)) int KperfThreadCounters::read_after_failure(uint64_t *values) noexcept {
    if (!running_) {
        for (size_t i = 0; i < n_; ++i) values[i] = total_[i];
        return KP_OK;
    }
    int err = errno;
    if (err == EINVAL && api_.kpc_get_thread_counters(0, KP_KPC_MAX_COUNTERS, hot_.copy.buf) == 0) {
        for (size_t i = 0; i < n_; ++i)
            values[i] = hot_.copy.buf[hot_.copy.index[i]] + hot_.copy.offset[i];
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
