// Reading kpep_db / kpep_event without trusting a hard-coded struct size: the event
// stride (56 bytes today, 48 on older macOS) is measured from the database at run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kpc/kperf_raw.h"

namespace kpc::kperf {

// One database event, read through the accessors where they exist.
struct EventFields {
    const kp_kpep_event_t *ptr = nullptr;
    std::string name, description;
    const char *errata = nullptr, *alias = nullptr, *fallback = nullptr;
    uint32_t mask = 0;    // as stored (0 = any configurable counter)
    uint16_t number = 0;  // selector
    bool fixed_flag = false;
};

struct DbView {
    size_t event_stride = 0;        // 56 or 48
    bool db_fields_trusted = false;  // kpep_db's event_arr/event_count agreed with the API
    std::string name;                // the struct's name field ("a14"), "" unless db_fields_trusted
    std::string api_name;            // what kpep_db_name() returned: the short or the marketing name
    std::string marketing_name;      // "" unless db_fields_trusted
    uint32_t architecture = UINT32_MAX;  // KP_KPEP_ARCH_*, UINT32_MAX unless trusted
    std::vector<EventFields> events;
};

// Lists the database's events and detects their layout. Throws KP_ELAYOUT (saying what
// it found) when the stride is neither 56 nor 48, KP_EFRAMEWORK on kpep errors.
DbView read_database(const kp_kperf_api_t &api, kp_kpep_db_t *db);

// Reads one event given the detected stride (also used for events found by alias).
EventFields read_event(const kp_kperf_api_t &api, const kp_kpep_event_t *ev, size_t stride);

}  // namespace kpc::kperf
