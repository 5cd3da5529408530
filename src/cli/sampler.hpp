// Owns the kp_sampler_t every command starts from.
#pragma once

#include <optional>

#include "kpc/kpc.h"

namespace kpc_cli {

class Sampler {
public:
    // Opens the backend: `backend` from --backend, or unset to let KPC_BACKEND and the
    // platform decide (kp_sampler_new resolves KPC_KPERF_PATH / KPC_KPERFDATA_PATH too).
    // Throws CliError with the library's message and `exit_code`.
    Sampler(std::optional<kp_backend_t> backend, int exit_code);
    ~Sampler() { kp_sampler_free(s_); }
    Sampler(const Sampler &) = delete;
    Sampler &operator=(const Sampler &) = delete;

    kp_sampler_t *get() const { return s_; }

private:
    kp_sampler_t *s_ = nullptr;
};

// "fixed", "configurable" or "software" (kp_event_kind), "unknown" otherwise.
const char *kind_name(int kind);

class JsonWriter;
// The fields every JSON report starts with: schema, kpc_version, backend and the cpu object.
// Call right after begin_object().
void write_json_header(JsonWriter &j, const char *schema, const char *backend,
                       const char *cpu_id, const char *cpu_name, const char *pmu);
void write_json_header(JsonWriter &j, const char *schema, kp_sampler_t *s);

}  // namespace kpc_cli
