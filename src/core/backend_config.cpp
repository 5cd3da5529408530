// Options -> environment -> platform defaults, in the library and the CLI alike. The
// environment is read through code_selecting_env(): a privileged process ignores it.
#include <atomic>
#include <cstring>
#include <string>

#include "core/backend.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"

namespace kpc {
namespace {

// A library path from the environment, or nullptr. Only absolute paths: a relative one
// would make dlopen search the library path for a file of that name.
const char *library_path_env(const char *name) {
    const char *p = code_selecting_env(name);
    if (p && p[0] != '/')
        fail(KP_EINVAL, std::string(name) + "='" + p +
                            "' is a relative path, which dlopen would look up in the library "
                            "search path; set it to the library's absolute path");
    return p;
}

#if defined(__APPLE__)
std::atomic<bool> g_apple{true};
#else
std::atomic<bool> g_apple{false};
#endif

bool valid_backend(int b) {
    return b == KP_BACKEND_AUTO || b == KP_BACKEND_KPERF || b == KP_BACKEND_PERF_EVENT ||
           b == KP_BACKEND_RECOUNT;
}

// KP_BACKEND_AUTO on macOS: kperf if it may count, else recount (choose_apple_backend).
std::unique_ptr<Backend> make_apple_auto_backend(const BackendConfig &config) {
    int status = KP_OK;
    std::string message;
    try {
        std::unique_ptr<Backend> kperf =
            make_kperf_backend(config.kperf_path, config.kperfdata_path, config.libsystem_path);
        try {
            kperf->check_access();
        } catch (const Error &e) {
            status = e.status();
            message = e.message();
        }
        if (status == KP_OK) {
            kperf->set_choice_reason(choose_apple_backend(KP_OK, "").reason);
            return kperf;
        }
    } catch (const Error &e) {  // kperf cannot even load: the recount backend may still count
        status = e.status();
        message = e.message();
    }
    AutoChoice choice = choose_apple_backend(status, message);
    std::unique_ptr<Backend> recount;
    try {
        recount = make_recount_backend(config.libsystem_path);
    } catch (const Error &e) {
        fail(e.status(), e.message() + "; kperf could not count either: " + message, e.os_code());
    }
    recount->set_choice_reason(choice.reason);
    return recount;
}

}  // namespace

AutoChoice choose_apple_backend(int kperf_status, const std::string &kperf_message) {
    if (kperf_status == KP_OK) return {KP_BACKEND_KPERF, "root: kperf can count every event"};
    if (kperf_status == KP_EPERM)
        return {KP_BACKEND_RECOUNT,
                "not root: counting cycles and instructions per thread without root; run "
                "with sudo for all events"};
    return {KP_BACKEND_RECOUNT,
            "kperf cannot count here (" + kperf_message +
                "): counting cycles and instructions per thread with recount"};
}

void set_apple_platform_for_testing(int on) { g_apple.store(on != 0); }

BackendConfig resolve_config(const kp_sampler_options_t *opts) {
    BackendConfig c;
    int user_reads = KP_USER_READS_AUTO;
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
        if (!valid_backend(backend))
            fail(KP_EINVAL, "kp_sampler_options_t.backend is " + std::to_string(backend) +
                                "; use KP_BACKEND_AUTO, KP_BACKEND_KPERF, KP_BACKEND_PERF_EVENT "
                                "or KP_BACKEND_RECOUNT");
        c.backend = static_cast<kp_backend_t>(backend);
        if (c.backend != KP_BACKEND_AUTO) c.reason = "named by the caller (kp_sampler_options_t.backend)";
        if (opts->kperf_path) c.kperf_path = opts->kperf_path;
        if (opts->kperfdata_path) c.kperfdata_path = opts->kperfdata_path;
        if (opts->version >= 2) {  // user_reads came with version 2
            int reads = 0;
            static_assert(sizeof(int) == sizeof(kp_user_reads_t), "kp_user_reads_t is int-sized");
            std::memcpy(&reads, &opts->user_reads, sizeof reads);
            if (reads < KP_USER_READS_AUTO || reads > KP_USER_READS_OFF)
                fail(KP_EINVAL, "kp_sampler_options_t.user_reads is " + std::to_string(reads) +
                                    "; use KP_USER_READS_AUTO, KP_USER_READS_ON or "
                                    "KP_USER_READS_OFF");
            user_reads = reads;
            if (reads == KP_USER_READS_OFF)
                c.user_reads_off = "turned off by kp_sampler_options_t.user_reads = KP_USER_READS_OFF";
        }
    }
    if (user_reads == KP_USER_READS_AUTO) {
        if (const char *v = code_selecting_env("KPC_USER_READS")) {
            if (!std::strcmp(v, "0"))
                c.user_reads_off = "turned off by KPC_USER_READS=0";
            else if (std::strcmp(v, "1") != 0)
                fail(KP_EINVAL, std::string("KPC_USER_READS='") + v +
                                    "' is neither 0 (read counters with read()) nor 1 (read "
                                    "them in user space where the kernel allows)");
        }
    }
    if (c.backend == KP_BACKEND_AUTO) {
        if (const char *b = code_selecting_env("KPC_BACKEND")) {
            if (!std::strcmp(b, "kperf")) c.backend = KP_BACKEND_KPERF;
            else if (!std::strcmp(b, "perf_event")) c.backend = KP_BACKEND_PERF_EVENT;
            else if (!std::strcmp(b, "recount")) c.backend = KP_BACKEND_RECOUNT;
            else if (std::strcmp(b, "auto") != 0)
                fail(KP_EINVAL, std::string("KPC_BACKEND='") + b +
                                    "' is not a backend; use auto, kperf, perf_event or recount");
            if (c.backend != KP_BACKEND_AUTO) c.reason = std::string("named by KPC_BACKEND=") + b;
        }
    }
    // On macOS AUTO stays: make_backend() tries kperf first.
    if (c.backend == KP_BACKEND_AUTO && !g_apple.load()) {
        c.backend = KP_BACKEND_PERF_EVENT;
        c.reason = "the platform's own (Linux)";
    }
    if (c.kperf_path.empty()) {
        const char *p = library_path_env("KPC_KPERF_PATH");
        c.kperf_path = p ? p : "/System/Library/PrivateFrameworks/kperf.framework/kperf";
    }
    if (c.kperfdata_path.empty()) {
        const char *p = library_path_env("KPC_KPERFDATA_PATH");
        c.kperfdata_path = p ? p : "/System/Library/PrivateFrameworks/kperfdata.framework/kperfdata";
    }
    if (const char *p = library_path_env("KPC_LIBSYSTEM_PATH")) c.libsystem_path = p;
    return c;
}

std::unique_ptr<Backend> make_backend(const BackendConfig &config) {
    try {
        std::unique_ptr<Backend> b;
        switch (config.backend) {
        case KP_BACKEND_PERF_EVENT:
            b = make_perf_event_backend(config.user_reads_off);
            break;
        case KP_BACKEND_KPERF:
            b = make_kperf_backend(config.kperf_path, config.kperfdata_path, config.libsystem_path);
            break;
        case KP_BACKEND_RECOUNT:
            b = make_recount_backend(config.libsystem_path);
            break;
        case KP_BACKEND_AUTO:
            return make_apple_auto_backend(config);  // sets its own reason
        default:
            fail(KP_EINVAL, "no backend selected");
        }
        b->set_choice_reason(config.reason);
        return b;
    } catch (const Error &e) {
        // A default framework that fails to load may be why the user had set the ignored path.
        throw with_environment_note(e);
    }
}

#if !defined(KPC_HAVE_PERF_EVENT)
std::unique_ptr<Backend> make_perf_event_backend(const std::string &) {
    fail(KP_EUNSUPPORTED,
         "the perf_event backend is only built on Linux; use the kperf backend on macOS");
}
#endif

}  // namespace kpc
