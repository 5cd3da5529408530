// libFuzzer target: event names -> kp_sampler_event_find and kp_thread_new on the kperf
// backend, over the simulated kperf/kperfdata frameworks (tests/kperf_sim). Checks after
// every input that the simulated kernel is back as it was and no kpep object leaked.
#include <cstdint>
#include <string>

#include "event_names.hpp"
#include "fuzz_input.hpp"
#include "sim_state.hpp"

namespace {

// The machines the first input byte chooses between (databases of tests/kperf_sim).
const char *const kChips[] = {"a14", "a15", "a16", "as1", "as3", "as4", "as4-2", "as5", "a14-legacy48"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const kpc_fuzz::SimState boot = kpc_fuzz::sim_state();
    kpc_fuzz::FuzzInput in(data, size);
    const char *chip = kChips[in.byte() % (sizeof kChips / sizeof kChips[0])];
    KPC_FUZZ_CHECK(kpsim_set_chip(chip) == 0, chip);
    kp_sampler_options_t opts;
    kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
    opts.backend = KP_BACKEND_KPERF;
    opts.kperf_path = KPC_FUZZ_KPERF;
    opts.kperfdata_path = KPC_FUZZ_KPERFDATA;
    kp_sampler_t *s = nullptr;
    int rc = kp_sampler_new(&s, &opts);
    KPC_FUZZ_CHECK(rc == KP_OK, std::string(chip) + ": " + kp_error_last_message());
    kpc_fuzz::exercise_event_names(s, in);
    kp_sampler_free(s);
    kpc_fuzz::check_sim_restored(boot);
    return 0;
}
