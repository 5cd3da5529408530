#include "cli/counter_counts.hpp"

#include "cli/cli_error.hpp"
#include "cli/json_writer.hpp"
#include "cli/text_format.hpp"

namespace kpc_cli {

CounterCounts read_counter_counts(kp_sampler_t *s) {
    CounterCounts c;
    int rc = kp_sampler_counter_count(&c.fixed, &c.configurable, s);
    // KP_EUNSUPPORTED: the kernel does not tell; say so rather than print a wrong number.
    if (rc == KP_EUNSUPPORTED) {
        c.known = false;
        c.unknown = kp_error_last_message();
        const std::string prefix = "kp_sampler_counter_count: ";
        if (c.unknown.rfind(prefix, 0) == 0) c.unknown.erase(0, prefix.size());
    } else if (rc != KP_OK) {
        throw CliError(last_kp_error(rc), kExitError, rc);
    }
    return c;
}

std::string counter_counts_text(const CounterCounts &c) {
    return c.known ? format("%u fixed, %u configurable", c.fixed, c.configurable)
                   : "unknown (" + c.unknown + ")";
}

void write_counter_counts_json(JsonWriter &j, const CounterCounts &c) {
    j.key("counters");
    j.begin_object();
    j.field_or_null("fixed", c.known, static_cast<uint64_t>(c.fixed));
    j.field_or_null("configurable", c.known, static_cast<uint64_t>(c.configurable));
    j.field_or_null("unknown_reason", !c.known, c.unknown);
    j.end_object();
}

}  // namespace kpc_cli
