// Assigning events to hardware counters: each event may only use the counters in its
// counters_mask. The search is a bipartite matching, so the answer never depends on the
// order the user listed the events in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kpc::kperf {

struct PlacementEvent {
    std::string label;  // name shown in messages
    uint32_t mask = 0;  // absolute counters the event may use
};

struct Placement {
    bool ok = false;
    std::vector<int> counter;  // per event, when ok
    int status = 0;            // when !ok: KP_ECONFLICT or KP_EUNAVAILABLE
    std::string message;       // when !ok: names the events and the counters they compete for
};

// `available` = bitmap of the counters this machine has (bit i = counter i); `fixed` =
// bitmap of those that are fixed-function.
Placement place_events(const std::vector<PlacementEvent> &events, uint32_t available,
                       uint32_t fixed);

// Orders in which to hand the events to kpep_config_add_event, most promising first:
// kpep's own placement rule is not documented, so the caller tries these in turn.
std::vector<std::vector<size_t>> kpep_add_orders(const std::vector<PlacementEvent> &events,
                                                 const Placement &placement, size_t max_orders);

// "5-7" / "2, 4" style list of the counters in `mask`.
std::string counter_list(uint32_t mask);

}  // namespace kpc::kperf
