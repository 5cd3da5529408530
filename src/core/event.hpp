// The object behind the public kp_event_t handle. One per database entry; its address is
// stable for the session's lifetime (EventDatabase stores events in a deque).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kpc/event.h"

struct kp_event {
    std::string name;         // generic name, or the native name for native events
    std::string native_name;  // backend's name (resolved candidate for generic events)
    std::string description;
    std::string unavailable_reason;  // empty when available
    int unavailable_os_code = 0;     // errno/kpep code behind unavailable_reason, 0 if none
    std::string alias, errata, fallback;  // Apple kpep strings; empty = none
    kp_event_kind_t kind = KP_EVENT_CONFIGURABLE;
    kp_event_unit_t unit = KP_EVENT_UNIT_COUNT;  // set where the backend makes the event
    bool generic = false;
    bool available = true;
    bool has_alias = false, has_errata = false, has_fallback = false;
    uint32_t counters_mask = 0;
    uint64_t selector = 0;
    int fixed_counter = -1;
    // Whether the count includes work done in kernel mode (kp_event_counts_kernel).
    bool counts_kernel = false;

    // perf's ":u"/":k" modifiers (core/event_modifiers): `modified` when the name had them;
    // then the modes the count leaves out.
    bool modified = false, exclude_user = false, exclude_kernel = false;

    // Backend encodings. perf_event: type/config words. kperf: the kpep_event pointer.
    uint32_t perf_type = 0;
    uint64_t perf_config = 0, perf_config1 = 0, perf_config2 = 0;
    const void *native = nullptr;

    // Events the backend built for a name lookup (raw codes, libpfm4 names, kpep aliases)
    // rather than listed at creation. The database holds a bounded number of them.
    bool looked_up = false;
    // For looked-up events: what makes two spellings one event (perf_event: the encoding,
    // so "r1" and "r01" share one entry). Empty: the name alone.
    std::string lookup_key;
};

namespace kpc {
using Event = ::kp_event;
}
