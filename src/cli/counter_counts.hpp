// kp_sampler_counter_count's answer as kpc prints it: the counts, or why they are not known.
// kpc info and kpc check both report it, the same way, and never print a made-up number.
#pragma once

#include <kpc/kpc.h>

#include <cstdint>
#include <string>

namespace kpc_cli {

class JsonWriter;

struct CounterCounts {
    uint32_t fixed = 0, configurable = 0;
    bool known = true;
    std::string unknown;  // why the kernel does not tell, when !known
};

// Throws CliError on a failure other than "unknown" (KP_EUNSUPPORTED).
CounterCounts read_counter_counts(kp_sampler_t *s);

// "2 fixed, 8 configurable", or "unknown (<why>)".
std::string counter_counts_text(const CounterCounts &c);

// "counters": {"fixed": N|null, "configurable": N|null, "unknown_reason": null|"why"}
void write_counter_counts_json(JsonWriter &j, const CounterCounts &c);

}  // namespace kpc_cli
