// The libSystem records both Apple backends read (facts and sources: docs/apple.md,
// "Without root: recount"): rusage_info offsets and struct mach_timebase_info. Only
// constants: every rusage_info field is a uint64_t, read by offset.
#pragma once

#include <cstddef>
#include <cstdint>

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

}  // namespace kpc::apple
