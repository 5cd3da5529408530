#include "kpc/process.h"

#include <unistd.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "core/process_counter.hpp"

using kpc::fail;
using kpc::guarded;
using kpc::record_error;

struct kp_process {
    std::unique_ptr<kpc::ProcessCounter> impl;
};

namespace {

constexpr size_t kMaxEvents = KP_MAX_EVENTS;
constexpr size_t kMaxArgs = 1u << 20;  // far beyond what exec accepts (ARG_MAX)

// The checks both constructors share, then the events resolved as kp_thread_new does.
std::vector<const kpc::Event *> resolve_events(const char *fn, kp_process_t **out,
                                               kp_sampler_t *s, const char *const *events,
                                               size_t count) {
    const std::string f = fn;
    if (!out) fail(KP_EINVAL, f + ": out is NULL");
    if (!s) fail(KP_EINVAL, f + ": sampler is NULL");
    if (!events) fail(KP_EINVAL, f + ": events is NULL");
    if (count == 0 || count > kMaxEvents)
        fail(KP_EINVAL, f + ": count is " + std::to_string(count) + "; give between 1 and " +
                            std::to_string(kMaxEvents) + " events");
    std::vector<std::string_view> names;
    for (size_t i = 0; i < count; ++i) {
        if (!events[i]) fail(KP_EINVAL, f + ": events[" + std::to_string(i) + "] is NULL");
        names.push_back(kpc::Session::bounded_name(events[i]));
    }
    return s->session->resolve_set(names);
}

// argv copied, after the checks kp_process_spawn and kp_process_spawn_ex share.
std::vector<std::string> command_args(const char *fn, const char *const *argv) {
    const std::string f = fn;
    if (!argv) fail(KP_EINVAL, f + ": argv is NULL");
    std::vector<std::string> args;
    for (size_t i = 0; argv[i] && i < kMaxArgs; ++i) args.emplace_back(argv[i]);
    if (args.empty() || args[0].empty())
        fail(KP_EINVAL, f + ": argv names no program; give {\"program\", ..., NULL}");
    return args;
}

// kp_process_options_t checked and copied (NULL: the defaults).
kpc::ProcessOptions process_options(const char *fn, const kp_process_options_t *options,
                                    size_t count) {
    const std::string f = fn;
    kpc::ProcessOptions o;
    if (!options) return o;
    if (options->version != KP_PROCESS_OPTIONS_VERSION)
        fail(KP_EINVAL, f + ": options version " + std::to_string(options->version) +
                            " is not one this library knows; set KP_PROCESS_OPTIONS_VERSION");
    if (options->flags & ~KP_PROCESS_PARTIAL)
        fail(KP_EINVAL, f + ": unknown flags " + std::to_string(options->flags) +
                            "; the only flag is KP_PROCESS_PARTIAL");
    o.partial = (options->flags & KP_PROCESS_PARTIAL) != 0;
    if (options->groups)
        for (size_t i = 0; i < count; ++i) {
            if (options->groups[i] < -1)
                fail(KP_EINVAL, f + ": groups[" + std::to_string(i) + "] is " +
                                    std::to_string(options->groups[i]) +
                                    "; give a group number >= 0, or -1 for none");
            o.groups.push_back(options->groups[i]);
        }
    return o;
}

}  // namespace

extern "C" {

int kp_process_spawn(kp_process_t **out, kp_sampler_t *s, const char *const *events, size_t count,
                     const char *const *argv) {
    if (out) *out = nullptr;
    return guarded([&] {
        std::vector<const kpc::Event *> set = resolve_events("kp_process_spawn", out, s, events, count);
        std::vector<std::string> args = command_args("kp_process_spawn", argv);
        auto p = std::make_unique<kp_process>();
        p->impl = kpc::ProcessCounter::spawn(s->session, std::move(set), args);
        *out = p.release();
        return KP_OK;
    });
}

int kp_process_options_init(kp_process_options_t *opts, unsigned int version) {
    return guarded([&] {
        if (!opts) fail(KP_EINVAL, "kp_process_options_init: opts is NULL");
        if (version != KP_PROCESS_OPTIONS_VERSION)
            fail(KP_EINVAL, "kp_process_options_init: version " + std::to_string(version) +
                                " is not known to this library (it knows " +
                                std::to_string(KP_PROCESS_OPTIONS_VERSION) + ")");
        *opts = kp_process_options_t{};
        opts->version = version;
        return KP_OK;
    });
}

int kp_process_spawn_ex(kp_process_t **out, kp_sampler_t *s, const char *const *events,
                        size_t count, const char *const *argv, const kp_process_options_t *options) {
    if (!options) return kp_process_spawn(out, s, events, count, argv);
    if (out) *out = nullptr;
    return guarded([&] {
        std::vector<const kpc::Event *> set = resolve_events("kp_process_spawn_ex", out, s, events, count);
        kpc::ProcessOptions o = process_options("kp_process_spawn_ex", options, count);
        std::vector<std::string> args = command_args("kp_process_spawn_ex", argv);
        auto p = std::make_unique<kp_process>();
        p->impl = kpc::ProcessCounter::spawn(s->session, std::move(set), args, o);
        *out = p.release();
        return KP_OK;
    });
}

int kp_process_attach(kp_process_t **out, kp_sampler_t *s, const char *const *events, size_t count,
                      int32_t pid) {
    if (out) *out = nullptr;
    if (pid == KP_PROCESS_SYSTEM_WIDE)  // kp_process_attach takes processes only
        return record_error(KP_EINVAL, "kp_process_attach: pid is -1; give a process id, or 0 for "
                                       "the calling process (system-wide: kp_process_attach_ex "
                                       "with KP_PROCESS_SYSTEM_WIDE)");
    return kp_process_attach_ex(out, s, events, count, pid, nullptr);
}

int kp_process_attach_ex(kp_process_t **out, kp_sampler_t *s, const char *const *events,
                         size_t count, int32_t pid, const kp_process_options_t *options) {
    if (out) *out = nullptr;
    return guarded([&] {
        std::vector<const kpc::Event *> set = resolve_events("kp_process_attach", out, s, events, count);
        if (pid < KP_PROCESS_SYSTEM_WIDE)
            fail(KP_EINVAL, "kp_process_attach: pid is " + std::to_string(pid) +
                                "; give a process id, 0 for the calling process, or "
                                "KP_PROCESS_SYSTEM_WIDE (-1) for every CPU");
        kpc::ProcessOptions o = process_options("kp_process_attach_ex", options, count);
        auto p = std::make_unique<kp_process>();
        p->impl = kpc::ProcessCounter::attach(s->session, std::move(set),
                                              pid == 0 ? static_cast<int>(getpid()) : pid, o);
        *out = p.release();
        return KP_OK;
    });
}

void kp_process_free(kp_process_t *p) { delete p; }

int kp_process_start(kp_process_t *p) {
    if (!p) return record_error(KP_EINVAL, "kp_process_start: process is NULL");
    return guarded([&] {
        p->impl->start();
        return KP_OK;
    });
}

int kp_process_stop(kp_process_t *p) {
    if (!p) return record_error(KP_EINVAL, "kp_process_stop: process is NULL");
    return guarded([&] {
        p->impl->stop();
        return KP_OK;
    });
}

int kp_process_is_counting(const kp_process_t *p) { return p && p->impl->counting() ? 1 : 0; }

int kp_process_read(kp_process_t *p, uint64_t *values, size_t count) {
    return kp_process_read_full(p, values, nullptr, count, nullptr, nullptr);
}

int kp_process_read_full(kp_process_t *p, uint64_t *values, uint8_t *complete, size_t count,
                         uint64_t *time_enabled_ns, uint64_t *time_running_ns) {
    if (!p) return record_error(KP_EINVAL, "kp_process_read: process is NULL");
    if (!values) return record_error(KP_EINVAL, "kp_process_read: values is NULL");
    return guarded([&] {
        p->impl->read(values, complete, count, time_enabled_ns, time_running_ns);
        return KP_OK;
    });
}

int kp_process_wait(kp_process_t *p, int *exit_code, int *term_signal) {
    if (!p) return record_error(KP_EINVAL, "kp_process_wait: process is NULL");
    return guarded([&] {
        kpc::ProcessExit e = p->impl->wait();
        if (exit_code) *exit_code = e.exit_code;
        if (term_signal) *term_signal = e.term_signal;
        return KP_OK;
    });
}

size_t kp_process_thread_count(const kp_process_t *p) { return p ? p->impl->thread_count() : 0; }

int kp_process_read_thread(kp_process_t *p, size_t index, int32_t *tid, uint64_t *values,
                           uint8_t *complete, size_t count) {
    if (!p) return record_error(KP_EINVAL, "kp_process_read_thread: process is NULL");
    if (!values) return record_error(KP_EINVAL, "kp_process_read_thread: values is NULL");
    return guarded([&] {
        int id = 0;
        p->impl->read_thread(index, id, values, complete, count);
        if (tid) *tid = id;
        return KP_OK;
    });
}

int32_t kp_process_pid(const kp_process_t *p) { return p ? p->impl->pid() : -1; }

size_t kp_process_event_count(const kp_process_t *p) { return p ? p->impl->event_count() : 0; }

const kp_event_t *kp_process_event_at(const kp_process_t *p, size_t index) {
    return p ? p->impl->event(index) : nullptr;
}

int kp_process_event_scope(const kp_process_t *p, size_t index) {
    return p ? p->impl->scope(index) : -1;
}

int kp_process_event_status(const kp_process_t *p, size_t index, int *status, const char **reason) {
    if (!p) return record_error(KP_EINVAL, "kp_process_event_status: process is NULL");
    if (!status) return record_error(KP_EINVAL, "kp_process_event_status: status is NULL");
    const char *why = nullptr;
    if (!p->impl->status(index, *status, why))
        return record_error(KP_EINVAL,
                            "kp_process_event_status: index is out of range (kp_process_event_count)");
    if (reason) *reason = why;
    return KP_OK;
}

}
