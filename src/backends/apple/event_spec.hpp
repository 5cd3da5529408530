// An event an Apple kernel keeps totals of, per thread (thread_selfcounts) and per process
// (proc_pid_rusage): what it measures, on which cores. The recount backend lists them
// (recount/recount_events); the kperf backend reads a command's own cycles and
// instructions through them (apple/process_totals).
#pragma once

#include <cstdint>

namespace kpc::apple {

enum class Quantity : uint8_t { instructions, cycles, user_time, system_time, cpu_time };
enum class Level : uint8_t { all, performance, efficiency };  // P = perf level 0, E = level 1

struct EventSpec {
    const char *name;
    Quantity quantity;
    Level level;
    const char *description;  // used when libkpc's generic list does not describe the name
};

inline bool is_time(Quantity q) { return q >= Quantity::user_time; }

}  // namespace kpc::apple
