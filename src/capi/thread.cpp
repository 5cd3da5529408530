#include "kpc/thread.h"

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "capi/guard.hpp"
#include "capi/handles.hpp"

using kpc::fail;
using kpc::guarded;
using kpc::record_error;

namespace {

constexpr size_t kMaxEvents = KP_MAX_EVENTS;

// Cold and out of line: the sampling entry points then need no stack frame of their own
// for the message buffer, and kp_thread_sample ends in a tail call to the backend's read.
__attribute__((cold, noinline)) int wrong_thread(const char *fn) noexcept {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "%s: this kp_thread_t belongs to the thread that created it; create one "
                  "kp_thread_t per thread",
                  fn);
    return record_error(KP_EWRONG_THREAD, msg);
}

// The sampling functions' NULL-argument errors (the thread is checked first).
__attribute__((cold, noinline)) int null_argument(const kp_thread_t *t) noexcept {
    if (!t) return record_error(KP_EINVAL, "kp_thread_sample: thread is NULL");
    return record_error(KP_EINVAL, "kp_thread_sample: values is NULL");
}

}  // namespace

extern "C" {

int kp_thread_new(kp_thread_t **out, kp_sampler_t *s, const char *const *events, size_t count) {
    if (out) *out = nullptr;
    return guarded([&] {
        if (!out) fail(KP_EINVAL, "kp_thread_new: out is NULL");
        if (!s) fail(KP_EINVAL, "kp_thread_new: sampler is NULL");
        if (!events) fail(KP_EINVAL, "kp_thread_new: events is NULL");
        if (count == 0 || count > kMaxEvents)
            fail(KP_EINVAL, "kp_thread_new: count is " + std::to_string(count) +
                                "; give between 1 and " + std::to_string(kMaxEvents) + " events");
        std::vector<std::string_view> names;
        for (size_t i = 0; i < count; ++i) {
            if (!events[i])
                fail(KP_EINVAL, "kp_thread_new: events[" + std::to_string(i) + "] is NULL");
            names.push_back(kpc::Session::bounded_name(events[i]));
        }
        *out = new kp_thread(s->session, s->session->resolve_set(names));
        return KP_OK;
    });
}

void kp_thread_free(kp_thread_t *t) { delete t; }

int kp_thread_start(kp_thread_t *t) {
    if (!t) return record_error(KP_EINVAL, "kp_thread_start: thread is NULL");
    if (!t->impl.on_owner_thread()) return wrong_thread("kp_thread_start");
    return guarded([&] {
        t->impl.start();
        return KP_OK;
    });
}

int kp_thread_stop(kp_thread_t *t) {
    if (!t) return record_error(KP_EINVAL, "kp_thread_stop: thread is NULL");
    if (!t->impl.on_owner_thread()) return wrong_thread("kp_thread_stop");
    return guarded([&] {
        t->impl.stop();
        return KP_OK;
    });
}

int kp_thread_sample(kp_thread_t *t, uint64_t *values, size_t count) {
    if (__builtin_expect(!t || !values, 0)) return null_argument(t);
    if (__builtin_expect(!t->impl.on_owner_thread(), 0)) return wrong_thread("kp_thread_sample");
    return t->impl.sample(values, nullptr, count, nullptr, nullptr);
}

int kp_thread_sample_full(kp_thread_t *t, uint64_t *values, uint8_t *complete, size_t count,
                          uint64_t *time_enabled_ns, uint64_t *time_running_ns) {
    if (__builtin_expect(!t || !values, 0)) return null_argument(t);
    if (__builtin_expect(!t->impl.on_owner_thread(), 0)) return wrong_thread("kp_thread_sample");
    return t->impl.sample(values, complete, count, time_enabled_ns, time_running_ns);
}

int kp_thread_is_running(const kp_thread_t *t) { return t && t->impl.running() ? 1 : 0; }

size_t kp_thread_event_count(const kp_thread_t *t) { return t ? t->impl.events().size() : 0; }

const kp_event_t *kp_thread_event_at(const kp_thread_t *t, size_t index) {
    if (!t || index >= t->impl.events().size()) return nullptr;
    return t->impl.events()[index];
}

int kp_thread_user_reads(const kp_thread_t *t) {
    return t ? (t->impl.user_reads_refusal()[0] == '\0' ? 1 : 0) : -1;
}

const char *kp_thread_user_reads_reason(const kp_thread_t *t) {
    return t ? t->impl.user_reads_refusal() : nullptr;
}

}
