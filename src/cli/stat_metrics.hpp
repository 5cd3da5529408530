// Derived metrics kpc stat prints beside a count (perf stat's "# ..." column).
#pragma once

#include <optional>
#include <string>

namespace kpc_cli {

// Mean counts of the events a metric may need; unset when not counted.
struct MetricInputs {
    std::optional<double> task_clock_ns;  // task-clock, else cpu-clock
    std::optional<double> cycles;
    std::optional<double> instructions;
    std::optional<double> branches;
    std::optional<double> cache_references;
    double elapsed_ns = 0;  // mean wall time of the command
};

struct Metric {
    const char *id;    // stable JSON name: cpus_utilized, ghz, ipc, branch_miss_pct, ...
    double value;
    const char *unit;  // as printed: "CPUs utilized", "GHz", "insn per cycle", "/sec", ...
    bool percent;      // value is a percentage
    bool per_second;   // value is events per second (printed with a K/M/G prefix)
};

// The metric for one counted event: `generic_name` is its generic name ("" for native
// events), `time_ns` whether it counts nanoseconds (kp_event_unit), `value` its mean. A
// time is CPUs utilized over the elapsed time; ratios need their input counted and
// non-zero; anything else becomes a rate per second of task-clock (of elapsed time without
// task-clock).
std::optional<Metric> derive_metric(const std::string &generic_name, bool time_ns, double value,
                                    const MetricInputs &in);

}  // namespace kpc_cli
