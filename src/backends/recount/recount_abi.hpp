// Apple's private recount interface as the kernel lays it out (facts and sources:
// docs/apple.md, "Without root: recount"). Only constants and offsets: every struct is a
// run of uint64_t words, so the backend reads words by index rather than declaring structs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kpc::recount {

// thread_selfcounts kinds. 1 since macOS 10.13 (the only one through 12.x); 2-4 since 13.0.
// kind = 1 + (per perf level ? 1 : 0) + (with times ? 2 : 0).
constexpr uint32_t kThscCpi = 1;                  // {instructions, cycles}
constexpr uint32_t kThscCpiPerPerfLevel = 2;      // thsc_cpi x levels
constexpr uint32_t kThscTimeCpi = 3;              // {instructions, cycles, user, system}
constexpr uint32_t kThscTimeCpiPerPerfLevel = 4;  // thsc_time_cpi x levels

// Word indices inside one thsc_cpi / thsc_time_cpi entry (times in mach ticks).
constexpr size_t kWordInstructions = 0;
constexpr size_t kWordCycles = 1;
constexpr size_t kWordUserTime = 2;
constexpr size_t kWordSystemTime = 3;

// The per-perf-level array holds at most 2 entries on every kernel.
constexpr size_t kMaxLevelEntries = 2;

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

}  // namespace kpc::recount
