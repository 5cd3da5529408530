// Welch's t-test: do two sets of runs have different means, without assuming equal
// variances? Used by `kpc diff` to tell a real change in a counter from run-to-run noise.
#pragma once

#include <optional>

#include "cli/run_stats.hpp"

namespace kpc_cli {

struct WelchResult {
    double t = 0;                   // (new - base) / standard error; 0 when both are constant
    double degrees_of_freedom = 0;  // Welch–Satterthwaite; 0 when both are constant
    double p_value = 1;             // two-sided
};

// Needs at least 2 runs on each side (std::nullopt otherwise: no variance to test with).
// When neither side varies, the difference is exact: p = 0 if the means differ, else 1.
std::optional<WelchResult> welch_t_test(const Summary &base, const Summary &changed);

// P(|T| >= |t|) for Student's t with `df` degrees of freedom (df > 0).
double student_t_two_sided_p(double t, double df);

}  // namespace kpc_cli
