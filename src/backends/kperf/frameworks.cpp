#include "backends/kperf/frameworks.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace kpc::kperf {
namespace {

enum Lib { kKperf, kKperfdata };

struct Symbol {
    const char *name;
    size_t offset;  // of the member in kp_kperf_api_t
    Lib lib;
    bool required;  // counting cannot work without it
};

#define KP_SYM(lib, name, required) {#name, offsetof(kp_kperf_api_t, name), lib, required}

// The 34 kperf and 23 kperfdata symbols of the reference, plus kpep_db_createx. The
// kperf_* sampling calls, the kpep name accessors (struct fields stand in) and calls
// libkpc never makes are optional, so a framework that lacks them still counts.
constexpr Symbol kSymbols[] = {
    KP_SYM(kKperf, kpc_cpu_string, true),
    KP_SYM(kKperf, kpc_pmu_version, true),
    KP_SYM(kKperf, kpc_get_counting, true),
    KP_SYM(kKperf, kpc_set_counting, true),
    KP_SYM(kKperf, kpc_get_thread_counting, true),
    KP_SYM(kKperf, kpc_set_thread_counting, true),
    KP_SYM(kKperf, kpc_get_config_count, true),
    KP_SYM(kKperf, kpc_get_counter_count, true),
    KP_SYM(kKperf, kpc_get_config, true),
    KP_SYM(kKperf, kpc_set_config, true),
    KP_SYM(kKperf, kpc_get_cpu_counters, true),
    KP_SYM(kKperf, kpc_get_thread_counters, true),
    KP_SYM(kKperf, kpc_force_all_ctrs_set, true),
    KP_SYM(kKperf, kpc_force_all_ctrs_get, true),
    KP_SYM(kKperf, kperf_action_count_set, false),
    KP_SYM(kKperf, kperf_action_count_get, false),
    KP_SYM(kKperf, kperf_action_samplers_set, false),
    KP_SYM(kKperf, kperf_action_samplers_get, false),
    KP_SYM(kKperf, kperf_action_filter_set_by_task, false),
    KP_SYM(kKperf, kperf_action_filter_set_by_pid, false),
    KP_SYM(kKperf, kperf_timer_count_set, false),
    KP_SYM(kKperf, kperf_timer_count_get, false),
    KP_SYM(kKperf, kperf_timer_period_set, false),
    KP_SYM(kKperf, kperf_timer_period_get, false),
    KP_SYM(kKperf, kperf_timer_action_set, false),
    KP_SYM(kKperf, kperf_timer_action_get, false),
    KP_SYM(kKperf, kperf_timer_pet_set, false),
    KP_SYM(kKperf, kperf_timer_pet_get, false),
    KP_SYM(kKperf, kperf_sample_set, false),
    KP_SYM(kKperf, kperf_sample_get, false),
    KP_SYM(kKperf, kperf_reset, false),
    KP_SYM(kKperf, kperf_ns_to_ticks, false),
    KP_SYM(kKperf, kperf_ticks_to_ns, false),
    KP_SYM(kKperf, kperf_tick_frequency, false),
    KP_SYM(kKperfdata, kpep_config_create, true),
    KP_SYM(kKperfdata, kpep_config_free, true),
    KP_SYM(kKperfdata, kpep_config_add_event, true),
    KP_SYM(kKperfdata, kpep_config_remove_event, false),
    KP_SYM(kKperfdata, kpep_config_force_counters, true),
    KP_SYM(kKperfdata, kpep_config_events_count, false),
    KP_SYM(kKperfdata, kpep_config_events, false),
    KP_SYM(kKperfdata, kpep_config_kpc, true),
    KP_SYM(kKperfdata, kpep_config_kpc_count, true),
    KP_SYM(kKperfdata, kpep_config_kpc_classes, true),
    KP_SYM(kKperfdata, kpep_config_kpc_map, true),
    KP_SYM(kKperfdata, kpep_db_create, true),
    KP_SYM(kKperfdata, kpep_db_free, true),
    KP_SYM(kKperfdata, kpep_db_name, false),
    KP_SYM(kKperfdata, kpep_db_aliases_count, false),
    KP_SYM(kKperfdata, kpep_db_aliases, false),
    KP_SYM(kKperfdata, kpep_db_counters_count, true),
    KP_SYM(kKperfdata, kpep_db_events_count, true),
    KP_SYM(kKperfdata, kpep_db_events, true),
    KP_SYM(kKperfdata, kpep_db_event, true),
    KP_SYM(kKperfdata, kpep_event_name, false),
    KP_SYM(kKperfdata, kpep_event_alias, false),
    KP_SYM(kKperfdata, kpep_event_description, false),
    KP_SYM(kKperfdata, kpep_db_createx, false),
};

#undef KP_SYM

}  // namespace

Library::~Library() {
    if (handle_) dlclose(handle_);
}

void Library::open(const std::string &path, const char *framework, const char *env_var) {
    path_ = path;
    dlerror();
    // RTLD_LOCAL: the frameworks' symbols must not interpose on anything else.
    handle_ = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle_) return;
    const char *why = dlerror();
    std::string msg = std::string("cannot load ") + framework + " from '" + path +
                      "': " + (why ? why : "dlopen failed") + ". Set " + env_var +
                      " (or the kp_sampler_options_t path) to the framework binary";
#if defined(__APPLE__)
    msg += "; it ships with macOS in /System/Library/PrivateFrameworks";
#else
    msg += "; on Linux use the perf_event backend instead (KPC_BACKEND=perf_event)";
#endif
    fail(KP_ELOAD, msg);
}

Frameworks::Frameworks(const std::string &kperf_path, const std::string &kperfdata_path) {
    kperf_.open(kperf_path, "kperf.framework", "KPC_KPERF_PATH");
    kperfdata_.open(kperfdata_path, "kperfdata.framework", "KPC_KPERFDATA_PATH");
    api_.size = sizeof api_;
    for (const Symbol &sym : kSymbols) {
        const Library &lib = sym.lib == kKperf ? kperf_ : kperfdata_;
        dlerror();
        void *p = dlsym(lib.handle(), sym.name);
        if (!p && sym.required) {
            const char *why = dlerror();
            fail(KP_ELOAD, std::string("the ") +
                               (sym.lib == kKperf ? "kperf" : "kperfdata") +
                               " framework at '" + lib.path() + "' does not export " + sym.name +
                               ", which counting needs (dlsym: " +
                               (why ? why : "symbol not found") +
                               "). Point " +
                               (sym.lib == kKperf ? "KPC_KPERF_PATH" : "KPC_KPERFDATA_PATH") +
                               " at Apple's framework binary");
        }
        // POSIX guarantees object and function pointers share a representation.
        std::memcpy(reinterpret_cast<char *>(&api_) + sym.offset, &p, sizeof p);
    }
}

}  // namespace kpc::kperf
