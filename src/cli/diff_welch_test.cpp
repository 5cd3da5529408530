#include "cli/diff_welch_test.hpp"

#include <cmath>

namespace kpc_cli {

namespace {

// Continued fraction of the regularized incomplete beta function (modified Lentz's method),
// valid for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (std::fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    // One Lentz step: the factor h is multiplied by.
    auto lentz = [&](double numerator) {
        d = 1 + numerator * d;
        if (std::fabs(d) < tiny) d = tiny;
        c = 1 + numerator / c;
        if (std::fabs(c) < tiny) c = tiny;
        d = 1 / d;
        return d * c;
    };
    for (int m = 1; m <= 300; ++m) {
        h *= lentz(m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)));  // even step
        double step = lentz(-(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)));  // odd step
        h *= step;
        if (std::fabs(step - 1) < 1e-15) break;
    }
    return h;
}

// I_x(a, b), the regularized incomplete beta function, for 0 <= x <= 1.
double regularized_beta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                       b * std::log1p(-x);
    double front = std::exp(log_front);
    if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
    return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;  // symmetry: converges here
}

}  // namespace

double student_t_two_sided_p(double t, double df) {
    if (!std::isfinite(t)) return 0;
    return regularized_beta(df / 2, 0.5, df / (df + t * t));
}

std::optional<WelchResult> welch_t_test(const Summary &base, const Summary &changed) {
    const size_t nb = base.values.size(), nc = changed.values.size();
    if (nb < 2 || nc < 2) return std::nullopt;
    WelchResult r;
    double vb = base.stddev * base.stddev / double(nb);
    double vc = changed.stddev * changed.stddev / double(nc);
    double diff = changed.mean - base.mean;
    if (vb + vc == 0) {
        r.p_value = diff == 0 ? 1 : 0;
        return r;
    }
    r.t = diff / std::sqrt(vb + vc);
    r.degrees_of_freedom = (vb + vc) * (vb + vc) /
                           (vb * vb / double(nb - 1) + vc * vc / double(nc - 1));
    r.p_value = student_t_two_sided_p(r.t, r.degrees_of_freedom);
    return r;
}

}  // namespace kpc_cli
