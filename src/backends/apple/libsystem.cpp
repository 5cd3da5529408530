#include "backends/apple/libsystem.hpp"

#include <dlfcn.h>

#include <vector>

#include "core/error.hpp"

namespace kpc::apple {
namespace {

template <typename F>
void find(void *handle, const char *name, F &out) {
    out = reinterpret_cast<F>(dlsym(handle, name));
}

}  // namespace

LibSystem::LibSystem(const std::string &path) {
    void *symbols = nullptr;
    if (path.empty()) {
#if defined(__APPLE__)
        symbols = RTLD_DEFAULT;
        source_ = "libSystem";
#else
        fail(KP_EUNSUPPORTED,
             "the recount backend reads macOS's per-thread counters from libSystem, which this "
             "system does not have; on Linux use the perf_event backend, or set "
             "KPC_LIBSYSTEM_PATH to a simulated libSystem (tests/recount_sim)");
#endif
    } else {
        handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle_) {
            const char *why = dlerror();
            fail(KP_ELOAD, "recount: cannot load KPC_LIBSYSTEM_PATH='" + path + "': " +
                               (why ? why : "dlopen failed") +
                               "; point it at a library that exports thread_selfcounts, or unset it");
        }
        symbols = handle_;
        source_ = path;
    }
    find(symbols, "thread_selfcounts", api_.thread_selfcounts);
    find(symbols, "proc_pidinfo", api_.proc_pidinfo);
    find(symbols, "proc_pid_rusage", api_.proc_pid_rusage);
    find(symbols, "mach_timebase_info", api_.mach_timebase_info);
    find(symbols, "sysctlbyname", api_.sysctlbyname);
}

LibSystem::~LibSystem() {
    if (handle_) dlclose(handle_);
}

bool LibSystem::sysctl_int(const char *name, int &out) const {
    if (!api_.sysctlbyname) return false;
    int v = 0;
    size_t len = sizeof v;
    if (api_.sysctlbyname(name, &v, &len, nullptr, 0) != 0 || len != sizeof v) return false;
    out = v;
    return true;
}

bool LibSystem::sysctl_string(const char *name, std::string &out) const {
    if (!api_.sysctlbyname) return false;
    size_t len = 0;  // Apple's protocol: a null buffer asks for the size
    if (api_.sysctlbyname(name, nullptr, &len, nullptr, 0) != 0 || len == 0 || len > 4096)
        return false;
    std::vector<char> buf(len + 1, '\0');
    if (api_.sysctlbyname(name, buf.data(), &len, nullptr, 0) != 0) return false;
    buf[len < buf.size() ? len : buf.size() - 1] = '\0';
    out = buf.data();
    return true;
}

}  // namespace kpc::apple
