/* LD_PRELOAD library for bindings' tests: kp_sampler_counter_count answers as on a machine
 * whose OS does not tell its counter count (arm64 with the probe forbidden, an unknown PMU):
 * 0 and 0 with KP_EUNSUPPORTED. A binding must then say "unknown", never hand out 0 and 0
 * as a count. Only bindings that reach libkpc.so through the dynamic linker can use it. */
#include <kpc/kpc.h>

int kp_sampler_counter_count(uint32_t *fixed_out, uint32_t *configurable_out,
                             const kp_sampler_t *s) {
    (void)s;
    if (fixed_out) *fixed_out = 0;
    if (configurable_out) *configurable_out = 0;
    return KP_EUNSUPPORTED;
}
