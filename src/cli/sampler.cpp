#include "cli/sampler.hpp"

#include <string>

#include "cli/cli_error.hpp"

namespace kpc_cli {

Sampler::Sampler(std::optional<kp_backend_t> backend, int exit_code) {
    kp_sampler_options_t opts;
    int rc = kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
    if (rc == KP_OK) {
        if (backend) opts.backend = *backend;
        rc = kp_sampler_new(&s_, &opts);
    }
    if (rc != KP_OK) throw CliError("cannot open a counting session: " + last_kp_error(rc), exit_code);
}

const char *kind_name(int kind) {
    switch (kind) {
    case KP_EVENT_FIXED: return "fixed";
    case KP_EVENT_CONFIGURABLE: return "configurable";
    case KP_EVENT_SOFTWARE: return "software";
    default: return "unknown";
    }
}

}  // namespace kpc_cli
