// The five libSystem functions the Apple backends call, found with dlsym: in the library
// KPC_LIBSYSTEM_PATH names (a simulator on Linux), else on macOS in the process itself; and
// the libSystem records both Apple backends read (facts and sources: docs/apple.md, "Without
// root: recount"): every rusage_info field is a uint64_t, read by offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kpc::apple {

// proc_pid_rusage flavours and the rusage_info byte offsets libkpc reads (uint64_t each).
constexpr int kRusageInfoV4 = 4;  // 296 bytes; ri_instructions/ri_cycles (10.13+)
constexpr int kRusageInfoV6 = 6;  // 464 bytes; P-core fields (13.0+)
constexpr size_t kRusageV6Size = 464;
constexpr size_t kRiUserTime = 16;       // mach ticks, user level
constexpr size_t kRiSystemTime = 24;     // mach ticks, kernel
constexpr size_t kRiStartAbstime = 80;   // mach ticks; the process's creation (V0+)
constexpr size_t kRiExitAbstime = 88;    // mach ticks; non-zero once the process exited
constexpr size_t kRiInstructions = 248;  // V4+
constexpr size_t kRiCycles = 256;        // V4+
constexpr size_t kRiUserPtime = 304;     // V6, P cores only
constexpr size_t kRiSystemPtime = 312;   // V6
constexpr size_t kRiPInstructions = 320; // V6
constexpr size_t kRiPCycles = 328;       // V6

// struct mach_timebase_info.
struct MachTimebase {
    uint32_t numer;
    uint32_t denom;
};

// ticks * numer / denom without overflowing for any realistic tick count.
inline uint64_t ticks_to_ns(uint64_t ticks, MachTimebase tb) noexcept {
    return ticks / tb.denom * tb.numer + ticks % tb.denom * tb.numer / tb.denom;
}

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
