#include "kpc/sampler.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>

#include "capi/guard.hpp"
#include "core/environment.hpp"
#include "capi/handles.hpp"

using kpc::fail;
using kpc::guarded;

extern "C" {

int kp_sampler_options_init(kp_sampler_options_t *opts, unsigned int version) {
    return guarded([&] {
        if (!opts) fail(KP_EINVAL, "kp_sampler_options_init: opts is NULL");
        if (version < 1 || version > KP_SAMPLER_OPTIONS_VERSION)
            fail(KP_EINVAL, "kp_sampler_options_init: version " + std::to_string(version) +
                                " is not known to this library (it knows 1 to " +
                                std::to_string(KP_SAMPLER_OPTIONS_VERSION) + ")");
        // A caller built against version 1 passes the smaller version 1 structure.
        const size_t size = version == 1 ? offsetof(kp_sampler_options_t, user_reads) : sizeof *opts;
        std::memset(opts, 0, size);
        opts->version = version;
        opts->backend = KP_BACKEND_AUTO;
        if (version >= 2) opts->user_reads = KP_USER_READS_AUTO;
        return KP_OK;
    });
}

int kp_sampler_new(kp_sampler_t **out, const kp_sampler_options_t *opts) {
    if (out) *out = nullptr;
    return guarded([&] {
        if (!out) fail(KP_EINVAL, "kp_sampler_new: out is NULL");
        kpc::BackendConfig config = kpc::resolve_config(opts);
        auto handle = std::make_unique<kp_sampler>();
        handle->session = std::make_shared<kpc::Session>(config);
        *out = handle.release();
        return KP_OK;
    });
}

void kp_sampler_free(kp_sampler_t *s) {
    delete s;  // the session lives on while threads hold it
}

int kp_sampler_release(kp_sampler_t *s) {
    return guarded([&] {
        if (!s) fail(KP_EINVAL, "kp_sampler_release: sampler is NULL");
        s->session->release();
        return KP_OK;
    });
}

int kp_sampler_backend(const kp_sampler_t *s) {
    return s ? static_cast<int>(s->session->backend().kind()) : -1;
}

const char *kp_sampler_backend_name(const kp_sampler_t *s) {
    return s ? s->session->backend().name() : nullptr;
}

const char *kp_sampler_backend_reason(const kp_sampler_t *s) {
    return s ? s->session->backend().choice_reason().c_str() : nullptr;
}

// The backend's reason, or a fixed text when even finding it failed (no exception crosses C).
static const char *user_reads_reason(const kp_sampler_t *s) {
    try {
        return s->session->backend().user_reads_refusal().c_str();
    } catch (...) {
        return "not known: libkpc failed while asking the kernel (out of memory?)";
    }
}

int kp_sampler_user_reads(const kp_sampler_t *s) {
    return s ? (user_reads_reason(s)[0] == '\0' ? 1 : 0) : -1;
}

const char *kp_sampler_user_reads_reason(const kp_sampler_t *s) {
    return s ? user_reads_reason(s) : nullptr;
}

const char *kp_ignored_environment(void) {
    thread_local std::string note;  // per thread, so callers on other threads cannot clobber it
    try {
        note = kpc::ignored_environment_note();
    } catch (...) {  // out of memory: nothing to say rather than an exception across C
        note.clear();
    }
    return note.c_str();
}

const char *kp_sampler_cpu_id(const kp_sampler_t *s) {
    return s ? s->session->backend().cpu().id.c_str() : nullptr;
}

const char *kp_sampler_cpu_name(const kp_sampler_t *s) {
    return s ? s->session->backend().cpu().name.c_str() : nullptr;
}

const char *kp_sampler_pmu_name(const kp_sampler_t *s) {
    return s ? s->session->backend().cpu().pmu.c_str() : nullptr;
}

int kp_sampler_counter_count(uint32_t *fixed_out, uint32_t *configurable_out,
                             const kp_sampler_t *s) {
    return guarded([&] {
        if (!s) fail(KP_EINVAL, "kp_sampler_counter_count: sampler is NULL");
        const kpc::Backend &b = s->session->backend();
        if (fixed_out) *fixed_out = b.fixed_counters();
        if (configurable_out) *configurable_out = b.configurable_counters();
        std::string unknown = b.counters_unknown();
        if (!unknown.empty()) fail(KP_EUNSUPPORTED, "kp_sampler_counter_count: " + unknown);
        return KP_OK;
    });
}

int kp_sampler_access(const kp_sampler_t *s) {
    return guarded([&] {
        if (!s) fail(KP_EINVAL, "kp_sampler_access: sampler is NULL");
        if (s->session->released())
            fail(KP_ESTATE, "the sampler was released (kp_sampler_release); create a new sampler to count again");
        try {
            s->session->backend().check_access();
        } catch (const kpc::Error &e) {
            throw kpc::with_environment_note(e);  // an ignored KPC_* variable may explain it
        }
        return KP_OK;
    });
}

size_t kp_sampler_event_count(const kp_sampler_t *s) {
    return s ? s->session->events().size() : 0;
}

const kp_event_t *kp_sampler_event_at(const kp_sampler_t *s, size_t index) {
    return s ? s->session->events().at(index) : nullptr;
}

int kp_sampler_event_find(const kp_event_t **out, kp_sampler_t *s, const char *name) {
    if (out) *out = nullptr;
    return guarded([&] {
        if (!out) fail(KP_EINVAL, "kp_sampler_event_find: out is NULL");
        if (!s) fail(KP_EINVAL, "kp_sampler_event_find: sampler is NULL");
        if (!name) fail(KP_EINVAL, "kp_sampler_event_find: name is NULL");
        *out = s->session->resolve(kpc::Session::bounded_name(name));
        return KP_OK;
    });
}

}
