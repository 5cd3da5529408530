// Turning an event set into what the kernel needs: kpep builds the kpc configuration
// words, the counter classes and the map from each event to its slot in the counter
// buffers the kpc_get_*_counters calls fill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kpc/kperf_raw.h"

namespace kpc::kperf {

struct ProgramEvent {
    std::string label;              // shown in messages
    kp_kpep_event_t *event = nullptr;
    uint32_t mask = 0;              // effective absolute counters mask
    // kpep_config_add_event's flag: KP_KPEP_ADD_USER_ONLY for a configurable counter,
    // 0 (all modes) for a fixed one, which counts every mode whatever is asked.
    uint32_t add_flag = 0;
};

struct KpcProgram {
    uint32_t classes = 0;                 // KP_KPC_CLASS_*_MASK
    std::vector<kp_kpc_config_t> words;   // configurable-class words for kpc_set_config
    std::vector<uint32_t> index;          // per event, in the caller's order: buffer slot
    std::string events;                   // "cycles, branches": for busy messages

    // Two programs can share the kernel when they need the same configuration.
    bool same_config(const KpcProgram &o) const {
        return classes == o.classes && words == o.words;
    }
    bool needs_config() const {
        return (classes & KP_KPC_CLASS_CONFIGURABLE_MASK) && !words.empty();
    }
};

// Places the events (throwing KP_ECONFLICT / KP_EUNAVAILABLE with the competing events
// and counters when impossible), then asks kpep for the configuration, retrying other
// add orders when kpep's own allocator refuses one. `available`/`fixed` are counter
// bitmaps. Every kpep object it creates is freed before it returns or throws.
// Each event is added with its own add_flag. `fixed_anchor` (a fixed-counter event, or
// nullptr; added with flag 0) is added to the configuration when
// no event uses a fixed counter, and never reported: with a fixed-class event in the
// config, kpep_config_kpc_map's indices are absolute under either of its two plausible
// conventions (class-relative or absolute without one), and match the kernel's buffer.
KpcProgram build_program(const kp_kperf_api_t &api, kp_kpep_db_t *db,
                         const std::vector<ProgramEvent> &events, uint32_t available,
                         uint32_t fixed, kp_kpep_event_t *fixed_anchor);

}  // namespace kpc::kperf
