#include "kpc/event.h"

#include "core/event.hpp"

extern "C" {

const char *kp_event_name(const kp_event_t *e) { return e ? e->name.c_str() : nullptr; }
const char *kp_event_native_name(const kp_event_t *e) { return e ? e->native_name.c_str() : nullptr; }
const char *kp_event_description(const kp_event_t *e) { return e ? e->description.c_str() : nullptr; }
int kp_event_kind(const kp_event_t *e) { return e ? static_cast<int>(e->kind) : -1; }
int kp_event_unit(const kp_event_t *e) { return e ? static_cast<int>(e->unit) : -1; }
int kp_event_is_generic(const kp_event_t *e) { return e && e->generic ? 1 : 0; }
int kp_event_is_available(const kp_event_t *e) { return e && e->available ? 1 : 0; }
const char *kp_event_unavailable_reason(const kp_event_t *e) {
    return e ? e->unavailable_reason.c_str() : nullptr;
}
const char *kp_event_alias(const kp_event_t *e) { return e && e->has_alias ? e->alias.c_str() : nullptr; }
const char *kp_event_errata(const kp_event_t *e) { return e && e->has_errata ? e->errata.c_str() : nullptr; }
const char *kp_event_fallback(const kp_event_t *e) {
    return e && e->has_fallback ? e->fallback.c_str() : nullptr;
}
uint32_t kp_event_counters_mask(const kp_event_t *e) { return e ? e->counters_mask : 0; }
uint64_t kp_event_selector(const kp_event_t *e) { return e ? e->selector : 0; }
int kp_event_fixed_counter(const kp_event_t *e) { return e ? e->fixed_counter : -1; }
int kp_event_counts_kernel(const kp_event_t *e) { return e ? (e->counts_kernel ? 1 : 0) : -1; }

}
