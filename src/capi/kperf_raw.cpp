// kp_sampler_kperf_api(), kp_sampler_kperf_info(): the C entry points of include/kpc/kperf_raw.h.
#include "kpc/kperf_raw.h"

#include <string>

#include "capi/guard.hpp"
#include "capi/handles.hpp"

extern "C" int kp_sampler_kperf_api(const kp_kperf_api_t **out, const kp_sampler_t *s) {
    if (out) *out = nullptr;
    return kpc::guarded([&] {
        if (!out) kpc::fail(KP_EINVAL, "kp_sampler_kperf_api: out is NULL");
        if (!s) kpc::fail(KP_EINVAL, "kp_sampler_kperf_api: sampler is NULL");
        const kpc::Backend &b = s->session->backend();
        if (b.kind() != KP_BACKEND_KPERF)
            kpc::fail(KP_EUNSUPPORTED, std::string("kp_sampler_kperf_api: the sampler uses the ") +
                                           b.name() +
                                           " backend; the kperf function table exists only on "
                                           "the kperf backend (KP_BACKEND_KPERF)");
        *out = b.kperf_api();
        return KP_OK;
    });
}

extern "C" int kp_sampler_kperf_info(kp_kperf_info_t *out, const kp_sampler_t *s) {
    return kpc::guarded([&] {
        if (!out) kpc::fail(KP_EINVAL, "kp_sampler_kperf_info: out is NULL");
        const kp_kperf_api_t *api = nullptr;
        if (int rc = kp_sampler_kperf_api(&api, s)) return rc;
        *out = s->session->backend().kperf_info();
        return static_cast<int>(KP_OK);
    });
}
