#include "cli/sampler.hpp"

#include "cli/json_writer.hpp"

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
    if (rc != KP_OK)
        throw CliError("cannot open a counting session: " + last_kp_error(rc), exit_code, rc);
}

const char *kind_name(int kind) {
    switch (kind) {
    case KP_EVENT_FIXED: return "fixed";
    case KP_EVENT_CONFIGURABLE: return "configurable";
    case KP_EVENT_SOFTWARE: return "software";
    default: return "unknown";
    }
}

void write_json_header(JsonWriter &j, const char *schema, const char *backend,
                       const char *cpu_id, const char *cpu_name, const char *pmu) {
    j.field("schema", schema);
    j.field("kpc_version", kp_version_string());
    j.field("backend", backend);
    j.key("cpu");
    j.begin_object();
    j.field("id", cpu_id);
    j.field("name", cpu_name);
    j.field("pmu", pmu);
    j.end_object();
}

void write_json_header(JsonWriter &j, const char *schema, kp_sampler_t *s) {
    write_json_header(j, schema, kp_sampler_backend_name(s), kp_sampler_cpu_id(s),
                      kp_sampler_cpu_name(s), kp_sampler_pmu_name(s));
}

}  // namespace kpc_cli
