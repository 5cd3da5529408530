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
    : api_(api), get_counters_(api.kpc_get_thread_counters), kernel_(std::move(kernel)), session_(session), released_(released),
      prog_(std::move(prog)) {
    hot_.n = prog_.index.size();
    if (hot_.n == 0 || hot_.n > KP_KPC_MAX_COUNTERS)  // read()'s unrolled copy relies on it
        fail(KP_ERROR, "kperf: internal error: " + std::to_string(hot_.n) +
                           " counters for one kp_thread_t (1 to 32 fit); please report this");
    for (size_t i = 0; i < hot_.n; ++i) hot_.index[i] = prog_.index[i];
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
    if (get_counters_(0, KP_KPC_MAX_COUNTERS, hot_.buf) == 0) return 0;
    int err = errno;
    if (err != EINVAL) return err;
    // The first call on a thread may find no buffer yet; the kernel allocates it on the
    // way back to user space, so one retry is enough.
    if (get_counters_(0, KP_KPC_MAX_COUNTERS, hot_.buf) == 0) return 0;
    return errno;
}

void KperfThreadCounters::start() {
    if (running_) return;
    kernel_->start(api_, this, session_, released_, prog_);
    int err = fetch();
    if (err == EINVAL) {
        // Still no buffer: the kernel starts this thread's counters from zero once it has one.
        std::memset(hot_.buf, 0, sizeof hot_.buf);
    } else if (err != 0) {
        try {
            kernel_->stop(api_, this);
        } catch (...) {
            // The read failure is the error to report.
        }
        throw_kpc("kpc_get_thread_counters", err);
    }
    for (size_t i = 0; i < hot_.n; ++i) {
        base_[i] = hot_.buf[hot_.index[i]];
        hot_.offset[i] = total_[i] - base_[i];
    }
    running_ = true;
    hot_.read_fn = get_counters_;
}

void KperfThreadCounters::stop() {
    if (!running_) return;
    running_ = false;
    hot_.read_fn = stopped_read;
    int err = 0;
    if (kernel_->counting(this)) {  // false once the sampler was released
        err = fetch();
        if (err == 0)
            for (size_t i = 0; i < hot_.n; ++i) total_[i] += hot_.buf[hot_.index[i]] - base_[i];
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
    if (__builtin_expect(complete != nullptr, 0)) return read_complete(values, complete);
    // Address the block through a pointer the compiler cannot relate to `this` (the
    // empty asm), so it keeps one register across the call instead of `this` and the
    // buffer's address; `values` and `this` wait in the block for the same reason.
    Hot *h = &hot_;
    asm("" : "+r"(h));
    h->out = values;
    if (__builtin_expect(h->read_fn(0, KP_KPC_MAX_COUNTERS, h->buf) != 0, 0))
        return h->self->read_after_failure(h->out);

    // values[i] = buf[index[i]] + offset[i], unrolled: a jump to the copy of event n - 1,
    // then per event an index load, an offset load, an add and a store. A table of label
    // addresses (GNU C, as in GCC and Clang) dispatches in two instructions fewer than a
    // switch's position-independent jump table.
    static_assert(KP_KPC_MAX_COUNTERS == 32, "one entry per possible event");
    static const void *const copy_from[KP_KPC_MAX_COUNTERS + 1] = {
        &&done, &&e0,  &&e1,  &&e2,  &&e3,  &&e4,  &&e5,  &&e6,  &&e7,  &&e8,  &&e9,
        &&e10,  &&e11, &&e12, &&e13, &&e14, &&e15, &&e16, &&e17, &&e18, &&e19, &&e20,
        &&e21,  &&e22, &&e23, &&e24, &&e25, &&e26, &&e27, &&e28, &&e29, &&e30, &&e31};
    uint64_t *const v = h->out;
    const uint64_t *const buf = h->buf, *const offset = h->offset;
    const uint32_t *const index = h->index;
    goto *copy_from[h->n];  // n is 1..KP_KPC_MAX_COUNTERS: the constructor checks it
#define KPC_COPY_EVENT(k) \
    e##k : v[k] = buf[index[k]] + offset[k]
    KPC_COPY_EVENT(31); KPC_COPY_EVENT(30); KPC_COPY_EVENT(29); KPC_COPY_EVENT(28);
    KPC_COPY_EVENT(27); KPC_COPY_EVENT(26); KPC_COPY_EVENT(25); KPC_COPY_EVENT(24);
    KPC_COPY_EVENT(23); KPC_COPY_EVENT(22); KPC_COPY_EVENT(21); KPC_COPY_EVENT(20);
    KPC_COPY_EVENT(19); KPC_COPY_EVENT(18); KPC_COPY_EVENT(17); KPC_COPY_EVENT(16);
    KPC_COPY_EVENT(15); KPC_COPY_EVENT(14); KPC_COPY_EVENT(13); KPC_COPY_EVENT(12);
    KPC_COPY_EVENT(11); KPC_COPY_EVENT(10); KPC_COPY_EVENT(9);  KPC_COPY_EVENT(8);
    KPC_COPY_EVENT(7);  KPC_COPY_EVENT(6);  KPC_COPY_EVENT(5);  KPC_COPY_EVENT(4);
    KPC_COPY_EVENT(3);  KPC_COPY_EVENT(2);  KPC_COPY_EVENT(1);  KPC_COPY_EVENT(0);
#undef KPC_COPY_EVENT
done:
    return KP_OK;
}

// kp_thread_sample_full's `complete` output, then the read itself.
__attribute__((noinline)) int KperfThreadCounters::read_complete(uint64_t *values,
                                                                 uint8_t *complete) noexcept {
    for (size_t i = 0; i < hot_.n; ++i) complete[i] = 1;
    uint64_t times[2];
    return read(values, nullptr, &times[0], &times[1]);
}

__attribute__((noinline)) int KperfThreadCounters::read_after_failure(uint64_t *values) noexcept {
    if (!running_) {
        for (size_t i = 0; i < hot_.n; ++i) values[i] = total_[i];
        return KP_OK;
    }
    int err = errno;
    if (err == EINVAL && get_counters_(0, KP_KPC_MAX_COUNTERS, hot_.buf) == 0) {
        for (size_t i = 0; i < hot_.n; ++i) values[i] = hot_.buf[hot_.index[i]] + hot_.offset[i];
        return KP_OK;
    }
    if (err == EINVAL) err = errno;
    if (err == EINVAL) {  // still no counter buffer: nothing counted on this thread yet
        for (size_t i = 0; i < hot_.n; ++i) values[i] = total_[i];
        return KP_OK;
    }
    return record_read_error("kpc_get_thread_counters", err);
}

}  // namespace kpc::kperf
