// What "left the simulated Apple machine as it was" means for a fuzz target: the kernel's
// counting switches, counter ownership and configuration, and the live kpep objects.
#pragma once

#include <cstddef>

#include "fuzz_input.hpp"
#include "kpsim.h"

namespace kpc_fuzz {

struct SimState {
    kpsim_kernel_state kernel{};
    size_t dbs = 0, configs = 0;
};

inline SimState sim_state() {
    SimState s;
    kpsim_kernel_get_state(&s.kernel);
    s.dbs = kpsim_data_live_dbs();
    s.configs = kpsim_data_live_configs();
    return s;
}

// Aborts (a libFuzzer crash) when the simulator differs from `before`.
inline void check_sim_restored(const SimState &before) {
    SimState now = sim_state();
    const kpsim_kernel_state &a = before.kernel, &b = now.kernel;
    KPC_FUZZ_CHECK(a.counting == b.counting, "kpc counting left on");
    KPC_FUZZ_CHECK(a.thread_counting == b.thread_counting, "thread counting left on");
    KPC_FUZZ_CHECK(a.force_all_ctrs == b.force_all_ctrs, "force_all_ctrs not restored");
    KPC_FUZZ_CHECK(a.force_owner == b.force_owner, "counters still held");
    KPC_FUZZ_CHECK(a.config_words == b.config_words, "configuration left programmed");
    KPC_FUZZ_CHECK(before.dbs == now.dbs, "kpep_db leaked");
    KPC_FUZZ_CHECK(before.configs == now.configs, "kpep_config leaked");
}

}  // namespace kpc_fuzz
