#include "cli/stat_metrics.hpp"

namespace kpc_cli {
namespace {

bool positive(const std::optional<double> &v) { return v && *v > 0; }

}  // namespace

std::optional<Metric> derive_metric(const std::string &name, bool time_ns, double value,
                                    const MetricInputs &in) {
    if (time_ns) {
        if (in.elapsed_ns <= 0) return std::nullopt;
        return Metric{"cpus_utilized", value / in.elapsed_ns, "CPUs utilized", false, false};
    }
    if (name == "cycles" && positive(in.task_clock_ns))
        return Metric{"ghz", value / *in.task_clock_ns, "GHz", false, false};
    if (name == "instructions" && positive(in.cycles))
        return Metric{"ipc", value / *in.cycles, "insn per cycle", false, false};
    if (name == "branch-misses" && positive(in.branches))
        return Metric{"branch_miss_pct", 100.0 * value / *in.branches, "of all branches", true, false};
    if (name == "cache-misses" && positive(in.cache_references))
        return Metric{"cache_miss_pct", 100.0 * value / *in.cache_references, "of all cache refs",
                      true, false};
    if (name == "stalled-cycles-frontend" && positive(in.cycles))
        return Metric{"frontend_idle_pct", 100.0 * value / *in.cycles, "frontend cycles idle",
                      true, false};
    if (name == "stalled-cycles-backend" && positive(in.cycles))
        return Metric{"backend_idle_pct", 100.0 * value / *in.cycles, "backend cycles idle", true,
                      false};
    double seconds = positive(in.task_clock_ns) ? *in.task_clock_ns / 1e9 : in.elapsed_ns / 1e9;
    if (seconds <= 0) return std::nullopt;
    return Metric{"per_second", value / seconds, "/sec", false, true};
}

}  // namespace kpc_cli
