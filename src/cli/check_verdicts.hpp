// kpc check: the result of one check, the rules that judge measured numbers, and the exit
// status they add up to. Pure functions of numbers, so the judging is the same everywhere.
#pragma once

#include "cli/cli_error.hpp"  // kExitCheckFailed, kExitCannotCount

#include <string>
#include <utility>
#include <vector>

namespace kpc_cli {


enum class Verdict { pass, fail, cannot_count };

// "pass", "fail", "cannot-count".
const char *verdict_name(Verdict v);

struct CheckResult {
    std::string event;   // generic event name, e.g. "instructions"
    std::string check;   // short id, e.g. "exact" (docs/cli.md lists them)
    Verdict verdict = Verdict::cannot_count;
    int counts_kernel = -1;  // kp_event_counts_kernel() of the event; -1 when not opened
    std::string message; // the numbers and what was expected, or why it cannot count
    std::vector<std::pair<std::string, double>> values;  // the numbers, for --json
};

// Least-squares line through (x, y) and the largest deviation from it, relative to y.
struct LineFit {
    double slope = 0;
    double intercept = 0;
    double max_relative_deviation = 0;
};
LineFit fit_line(const std::vector<double> &x, const std::vector<double> &y);

// Tolerances, named so docs/cli.md and the messages quote the same numbers.
constexpr double kExactTolerance = 0.01;       // per-iteration count within 1%
constexpr double kLinearityTolerance = 0.10;   // every point within 10% of the fitted line
constexpr double kMinProportionalShare = 0.5;  // slope x largest size >= half its count
constexpr double kMinRandomMissesPerBranch = 0.15;  // random minus predictable, per data branch
constexpr double kMinDramMissesPerAccess = 0.25;
constexpr double kMinMissGrowth = 4.0;         // DRAM-sized misses/access >= 4x L1-sized
constexpr double kMinGhz = 0.3, kMaxGhz = 6.0;
constexpr double kFaultTolerance = 0.05;       // page faults within 5% (+8) of the pages touched
// task-clock within 5% (+0.5 ms) of thread CPU time. In a VM, task-clock includes time the
// hypervisor stole from the vCPU and thread CPU time does not; the best of 3 runs keeps it small.
constexpr double kCpuTimeTolerance = 0.05;
constexpr double kCpuTimeSlackNs = 0.5e6;

// Each judge_* fills verdict, message and values of `r` (event and check already set).
// `per_iteration` is the slope of count over loop iterations; `expected` the exact number.
void judge_exact(CheckResult &r, double per_iteration, double expected, const char *unit);
// `sizes` ascending.
void judge_linearity(CheckResult &r, const std::vector<double> &sizes,
                     const std::vector<double> &counts);
void judge_random_branches(CheckResult &r, double random_per_branch, double predictable_per_branch);
void judge_working_set(CheckResult &r, double l1_per_access, double dram_per_access);
void judge_ghz(CheckResult &r, double cycles, double cpu_ns);
void judge_page_faults(CheckResult &r, double faults, double pages);
void judge_cpu_time(CheckResult &r, double task_clock_ns, double thread_cpu_ns);
// The event read `total` across a workload that must move it: 0 means "suspect zero".
void judge_nonzero(CheckResult &r, double total, const std::string &workload);

// 0 when at least one check ran and none failed; kExitCheckFailed if one failed;
// kExitCannotCount if every check was cannot-count (or there were none).
int check_exit_status(const std::vector<CheckResult> &results);

}  // namespace kpc_cli
