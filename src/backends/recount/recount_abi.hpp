// Apple's private recount interface as the kernel lays it out (facts and sources:
// docs/apple.md, "Without root: recount"): thread_selfcounts. Only constants and offsets:
// every struct is a run of uint64_t words, read by index rather than declared as structs.
// proc_pid_rusage and the timebase, which the kperf backend reads too: apple/libsystem.hpp.
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

}  // namespace kpc::recount
