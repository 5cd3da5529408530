#include "cli/run_stats.hpp"

#include <algorithm>
#include <cmath>

namespace kpc_cli {

Summary summarize(const std::vector<double> &values) {
    Summary s;
    s.values = values;
    if (values.empty()) return s;
    double sum = 0;
    for (double v : values) sum += v;
    s.mean = sum / static_cast<double>(values.size());
    if (values.size() > 1) {
        double sq = 0;
        for (double v : values) sq += (v - s.mean) * (v - s.mean);
        s.stddev = std::sqrt(sq / static_cast<double>(values.size() - 1));
    }
    s.stddev_pct = s.mean != 0 ? 100.0 * s.stddev / std::fabs(s.mean) : 0;
    auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    s.min = *lo;
    s.max = *hi;
    return s;
}

}  // namespace kpc_cli
