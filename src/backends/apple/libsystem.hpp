// The five libSystem functions the Apple backends call, found with dlsym: in the library
// KPC_LIBSYSTEM_PATH names (a simulator on Linux), else on macOS in the process itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/apple/libsystem_abi.hpp"

namespace kpc::apple {

struct LibSystemApi {
    int (*thread_selfcounts)(uint32_t kind, void *dst, size_t size) = nullptr;
    int (*proc_pidinfo)(int pid, int flavor, uint64_t arg, void *buffer, int buffersize) = nullptr;
    int (*proc_pid_rusage)(int pid, int flavor, void **buffer) = nullptr;
    int (*mach_timebase_info)(MachTimebase *info) = nullptr;
    int (*sysctlbyname)(const char *name, void *oldp, size_t *oldlenp, void *newp,
                        size_t newlen) = nullptr;
};

class LibSystem {
public:
    // `path`: an absolute path to dlopen, or "" for the process's own symbols (macOS only;
    // elsewhere throws KP_EUNSUPPORTED). Throws KP_ELOAD if the library cannot be opened.
    // A missing function is left null: the backend says what it needs it for.
    explicit LibSystem(const std::string &path);
    ~LibSystem();
    LibSystem(const LibSystem &) = delete;
    LibSystem &operator=(const LibSystem &) = delete;

    const LibSystemApi &api() const { return api_; }
    // Where the symbols come from, for messages: the path, or "libSystem".
    const std::string &source() const { return source_; }

    // sysctlbyname readers; false (and `out` untouched) when the name is unknown or the call
    // is missing.
    bool sysctl_int(const char *name, int &out) const;
    bool sysctl_string(const char *name, std::string &out) const;

private:
    void *handle_ = nullptr;  // dlopen handle; null for the process's own symbols
    std::string source_;
    LibSystemApi api_;
};

}  // namespace kpc::apple
