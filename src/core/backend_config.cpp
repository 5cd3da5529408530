// Options -> environment -> platform defaults, in the library and the CLI alike. The
// environment is read through code_selecting_env(): a privileged process ignores it.
#include <cstring>
#include <string>

#include "core/backend.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"

namespace kpc {
namespace {

// A framework path from the environment, or nullptr. Only absolute paths: a relative one
// would make dlopen search the library path for a file of that name.
const char *framework_path_env(const char *name) {
    const char *p = code_selecting_env(name);
    if (p && p[0] != '/')
        fail(KP_EINVAL, std::string(name) + "='" + p +
                            "' is a relative path, which dlopen would look up in the library "
                            "search path; set it to the framework's absolute path");
    return p;
}

kp_backend_t platform_backend() {
#if defined(__APPLE__)
    return KP_BACKEND_KPERF;
#else
    return KP_BACKEND_PERF_EVENT;
#endif
}

}  // namespace

BackendConfig resolve_config(const kp_sampler_options_t *opts) {
    BackendConfig c;
    if (opts) {
        if (opts->version < 1 || opts->version > KP_SAMPLER_OPTIONS_VERSION)
            fail(KP_EINVAL, "kp_sampler_options_t.version is " + std::to_string(opts->version) +
                                "; initialise options with kp_sampler_options_init(&opts, "
                                "KP_SAMPLER_OPTIONS_VERSION)");
        // Read the field as an int: a C caller may store any value, and loading an
        // out-of-range value through the enum type is undefined behaviour in C++.
        static_assert(sizeof(int) == sizeof(kp_backend_t), "kp_backend_t is int-sized");
        int backend = 0;
        std::memcpy(&backend, &opts->backend, sizeof backend);
        if (backend != KP_BACKEND_AUTO && backend != KP_BACKEND_KPERF &&
            backend != KP_BACKEND_PERF_EVENT)
            fail(KP_EINVAL, "kp_sampler_options_t.backend is " + std::to_string(backend) +
                                "; use KP_BACKEND_AUTO, KP_BACKEND_KPERF or KP_BACKEND_PERF_EVENT");
        c.backend = static_cast<kp_backend_t>(backend);
        if (opts->kperf_path) c.kperf_path = opts->kperf_path;
        if (opts->kperfdata_path) c.kperfdata_path = opts->kperfdata_path;
    }
    if (c.backend == KP_BACKEND_AUTO) {
        if (const char *b = code_selecting_env("KPC_BACKEND")) {
            if (!std::strcmp(b, "kperf")) c.backend = KP_BACKEND_KPERF;
            else if (!std::strcmp(b, "perf_event")) c.backend = KP_BACKEND_PERF_EVENT;
            else if (std::strcmp(b, "auto") != 0)
                fail(KP_EINVAL, std::string("KPC_BACKEND='") + b +
                                    "' is not a backend; use auto, kperf or perf_event");
        }
    }
    if (c.backend == KP_BACKEND_AUTO) c.backend = platform_backend();
    if (c.kperf_path.empty()) {
        const char *p = framework_path_env("KPC_KPERF_PATH");
        c.kperf_path = p ? p : "/System/Library/PrivateFrameworks/kperf.framework/kperf";
    }
    if (c.kperfdata_path.empty()) {
        const char *p = framework_path_env("KPC_KPERFDATA_PATH");
        c.kperfdata_path = p ? p : "/System/Library/PrivateFrameworks/kperfdata.framework/kperfdata";
    }
    return c;
}

std::unique_ptr<Backend> make_backend(const BackendConfig &config) {
    try {
        switch (config.backend) {
        case KP_BACKEND_PERF_EVENT:
            return make_perf_event_backend();
        case KP_BACKEND_KPERF:
            return make_kperf_backend(config.kperf_path, config.kperfdata_path);
        default:
            fail(KP_EINVAL, "no backend selected");
        }
    } catch (const Error &e) {
        // A default framework that fails to load may be why the user had set the ignored path.
        throw with_environment_note(e);
    }
}

std::unique_ptr<ProcessCounters> Backend::open_process(const std::vector<const Event *> &, int) {
    fail(KP_EUNSUPPORTED, std::string("the ") + name() + " backend cannot count another process");
}

#if !defined(KPC_HAVE_PERF_EVENT)
std::unique_ptr<Backend> make_perf_event_backend() {
    fail(KP_EUNSUPPORTED,
         "the perf_event backend is only built on Linux; use the kperf backend on macOS");
}
#endif

}  // namespace kpc
