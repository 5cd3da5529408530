// libkpc's generic event names on Apple and Intel Macs: per generation, the kpep event
// names to try in order. Names drift across macOS releases, so the candidates are
// resolved at run time with kpep_db_event and the first one the database has wins.
#pragma once

#include <string>
#include <vector>

#include "backends/kperf/chip.hpp"
#include "core/generic_events.hpp"

namespace kpc::kperf {

struct GenericMapping {
    std::vector<const char *> candidates;  // empty: no counterpart on this generation
    std::string note;  // why there is none, or what the mapping approximates
};

GenericMapping generic_candidates(GenericId id, Generation g);

}  // namespace kpc::kperf
