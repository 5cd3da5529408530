#include "cli/check_verdicts.hpp"

#include <algorithm>
#include <cmath>

#include "cli/text_format.hpp"

namespace kpc_cli {
namespace {

void set(CheckResult &r, bool ok, std::string message) {
    r.verdict = ok ? Verdict::pass : Verdict::fail;
    r.message = std::move(message);
}

}  // namespace

const char *verdict_name(Verdict v) {
    switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    default: return "cannot-count";
    }
}

LineFit fit_line(const std::vector<double> &x, const std::vector<double> &y) {
    LineFit f;
    const size_t n = std::min(x.size(), y.size());
    if (n < 2) return f;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; ++i) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    f.slope = sxx > 0 ? sxy / sxx : 0;
    f.intercept = my - f.slope * mx;
    for (size_t i = 0; i < n; ++i) {
        double predicted = f.slope * x[i] + f.intercept;
        // A point of 0 against a non-zero line is infinitely off: deviation 1 (100%) at least.
        double dev = y[i] != 0 ? std::fabs(y[i] - predicted) / std::fabs(y[i])
                               : (predicted != 0 ? 1.0 : 0.0);
        f.max_relative_deviation = std::max(f.max_relative_deviation, dev);
    }
    return f;
}

void judge_exact(CheckResult &r, double per_iteration, double expected, const char *unit) {
    double error = expected != 0 ? std::fabs(per_iteration - expected) / expected : 1.0;
    r.values = {{"per_iteration", per_iteration}, {"expected", expected}, {"relative_error", error}};
    set(r, error <= kExactTolerance,
        format("%.4f %s per loop iteration, expected exactly %g (within %g%%): %s", per_iteration,
               unit, expected, kExactTolerance * 100,
               error <= kExactTolerance ? "counts the loop exactly"
                                        : "does not count what the loop executes"));
}

void judge_linearity(CheckResult &r, const std::vector<double> &sizes,
                     const std::vector<double> &counts) {
    LineFit f = fit_line(sizes, counts);
    // A flat count fits a line too: the slope must also explain most of the largest count.
    double largest = sizes.empty() ? 0 : counts.back();
    double share = largest > 0 ? f.slope * sizes.back() / largest : 0;
    r.values = {{"slope", f.slope},
                {"intercept", f.intercept},
                {"max_relative_deviation", f.max_relative_deviation},
                {"proportional_share", share},
                {"sizes", static_cast<double>(sizes.size())}};
    bool ok = share >= kMinProportionalShare && f.max_relative_deviation <= kLinearityTolerance;
    set(r, ok,
        format("%zu workload sizes: %.4g per unit of work, largest deviation from a line %.2f%% "
               "(at most %g%%), %.0f%% of the count grows with the work (at least %g%%)",
               sizes.size(), f.slope, f.max_relative_deviation * 100, kLinearityTolerance * 100,
               share * 100, kMinProportionalShare * 100));
}

void judge_random_branches(CheckResult &r, double random_per_branch, double predictable_per_branch) {
    double gap = random_per_branch - predictable_per_branch;
    r.values = {{"random_misses_per_branch", random_per_branch},
                {"predictable_misses_per_branch", predictable_per_branch}};
    set(r, gap >= kMinRandomMissesPerBranch,
        format("%.3f mispredictions per random branch vs %.3f per predictable one (a random "
               "branch should add at least %g; about 0.5 in theory)",
               random_per_branch, predictable_per_branch, kMinRandomMissesPerBranch));
}

void judge_working_set(CheckResult &r, double l1_per_access, double dram_per_access) {
    r.values = {{"l1_sized_misses_per_access", l1_per_access},
                {"dram_sized_misses_per_access", dram_per_access}};
    bool ok = dram_per_access >= kMinDramMissesPerAccess &&
              dram_per_access >= kMinMissGrowth * l1_per_access;
    set(r, ok,
        format("%.3f misses per access in an L1-sized working set, %.3f in a DRAM-sized one "
               "(expected at least %g there, and %gx the L1-sized rate)",
               l1_per_access, dram_per_access, kMinDramMissesPerAccess, kMinMissGrowth));
}

void judge_ghz(CheckResult &r, double cycles, double cpu_ns) {
    double ghz = cpu_ns > 0 ? cycles / cpu_ns : 0;
    r.values = {{"cycles", cycles}, {"thread_cpu_ns", cpu_ns}, {"ghz", ghz}};
    set(r, ghz >= kMinGhz && ghz <= kMaxGhz,
        format("%.0f cycles in %.3f ms of thread CPU time: %.3f GHz (plausible: %g to %g GHz)",
               cycles, cpu_ns / 1e6, ghz, kMinGhz, kMaxGhz));
}

void judge_page_faults(CheckResult &r, double faults, double pages) {
    double allowed = kFaultTolerance * pages + 8;
    r.values = {{"faults", faults}, {"pages_touched", pages}};
    set(r, std::fabs(faults - pages) <= allowed,
        format("%.0f faults for %.0f fresh pages touched (expected %.0f +- %.0f)", faults, pages,
               pages, allowed));
}

void judge_cpu_time(CheckResult &r, double task_clock_ns, double thread_cpu_ns) {
    double allowed = kCpuTimeTolerance * thread_cpu_ns + kCpuTimeSlackNs;
    r.values = {{"task_clock_ns", task_clock_ns}, {"thread_cpu_ns", thread_cpu_ns}};
    set(r, std::fabs(task_clock_ns - thread_cpu_ns) <= allowed,
        format("task-clock %.3f ms vs CLOCK_THREAD_CPUTIME_ID %.3f ms (expected within "
               "%.3f ms)",
               task_clock_ns / 1e6, thread_cpu_ns / 1e6, allowed / 1e6));
}

void judge_nonzero(CheckResult &r, double total, const std::string &workload) {
    r.values = {{"total", total}};
    if (total > 0)
        set(r, true, format("%.0f across %s", total, workload.c_str()));
    else
        set(r, false,
            "suspect zero: read 0 across " + workload +
                ", which must move it; the counter is not counting (on Apple, some events are "
                "reported to read 0 silently without a private entitlement)");
}

int check_exit_status(const std::vector<CheckResult> &results) {
    bool any_ran = false;
    for (const CheckResult &r : results) {
        if (r.verdict == Verdict::fail) return kExitCheckFailed;
        if (r.verdict == Verdict::pass) any_ran = true;
    }
    return any_ran ? 0 : kExitCannotCount;
}

}  // namespace kpc_cli
