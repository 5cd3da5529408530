// kpc check: the environment section, what a bug report needs to know about the machine
// before any number: OS, chip, counters, permission and, on kperf, what the frameworks said.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/counter_counts.hpp"
#include "kpc/kpc.h"

namespace kpc_cli {

// What a thread that existed before counting began gets from its first raw
// kpc_get_thread_counters() once thread counting is on (XNU allocates its buffer lazily).
struct LazyBufferProbe {
    bool probed = false;
    std::string not_probed_reason;  // why not, when !probed
    int first_errno = 0;            // 0 = the read succeeded
    int retry_errno = 0;            // the immediate second read
    int after_switch_errno = 0;     // a third read after a sleep (a context switch)
};

// kp_sampler_kperf_info(), with the strings copied.
struct KperfEnvironment {
    std::string db_name, db_api_name, marketing_name;
    size_t event_stride = 0;
    bool chip_known = false;
    uint32_t configurable_before_force = 0, configurable_after_force = 0;
    LazyBufferProbe lazy_buffer;
};

struct Environment {
    std::string os_name;     // "Linux", "macOS"
    std::string os_version;  // kernel release / product version
    std::string os_detail;   // distribution, or macOS build; may be empty
    std::string machine;     // uname machine: x86_64, arm64, ...
    CounterCounts counters;  // or why the kernel does not tell
    int access_status = KP_OK;
    std::string access_reason;            // libkpc's message when counting is not allowed
    std::optional<KperfEnvironment> kperf;  // only on the kperf backend
};

Environment probe_environment(kp_sampler_t *s);

// "EINVAL" for EINVAL, ...; "errno N" for others; "ok" for 0.
std::string errno_label(int err);

}  // namespace kpc_cli
