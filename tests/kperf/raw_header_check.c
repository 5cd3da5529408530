/* Compiles include/kpc/kperf_raw.h alone as strict C (C99 and C11 builds). In C11 the
 * header's static assertions pin the struct layouts; this file adds a C89-style check
 * that works in C99 too. */
#include <kpc/kperf_raw.h>

/* A negative array size fails the build when a layout is wrong. */
typedef char kp_check_event[(sizeof(kp_kpep_event_t) == 56) ? 1 : -1];
typedef char kp_check_event_legacy[(sizeof(kp_kpep_event_legacy_t) == 48) ? 1 : -1];
typedef char kp_check_db[(sizeof(kp_kpep_db_t) == 152) ? 1 : -1];
typedef char kp_check_config[(sizeof(kp_kpep_config_t) == 80) ? 1 : -1];

int kp_raw_header_check(const kp_sampler_t *s);
int kp_raw_header_check(const kp_sampler_t *s) {
    const kp_kperf_api_t *api = 0;
    kp_check_event a;
    kp_check_event_legacy b;
    kp_check_db c;
    kp_check_config d;
    (void)a;
    (void)b;
    (void)c;
    (void)d;
    if (kp_sampler_kperf_api(&api, s) != KP_OK) return -1;
    return api->kpc_get_counting ? (int)api->kpc_get_counting() : -1;
}
