#include "cli/stat_csv.hpp"

#include <optional>
#include <vector>

#include "cli/stat_metrics.hpp"
#include "cli/run_stats.hpp"
#include "cli/stat_report.hpp"
#include "cli/text_format.hpp"

namespace kpc_cli {
namespace {

// perf prints a metric's number without its '%' and its unit without leading spaces:
// "55.633" "K/sec", "12.50" "of all branches".
void metric_fields(const std::optional<Metric> &m, std::vector<std::string> &f) {
    if (!m) {
        f.insert(f.end(), {"", ""});
        return;
    }
    if (m->per_second) {
        const char *prefix = "";
        double v = rate_in_unit(m->value, &prefix);
        f.insert(f.end(), {format("%.3f", v), std::string(prefix) + m->unit});
    } else {
        f.insert(f.end(), {format(m->percent ? "%.2f" : "%.3f", m->value), m->unit});
    }
}

std::vector<std::string> event_fields(const EventOutcome &e, const MetricInputs &in, bool repeated) {
    std::vector<std::string> f;
    const bool counted = e.status == EventStatus::counted;
    const Summary s = summarize(e.values());
    if (!counted) f.push_back(status_label(e.status));
    else if (e.time_ns) f.push_back(format("%.2f", s.mean / 1e6));
    else f.push_back(format("%.0f", s.mean));
    f.push_back(e.time_ns ? "msec" : "");
    f.push_back(e.name);
    if (repeated) f.push_back(format("%.2f%%", counted ? s.stddev_pct : 0.0));
    // Run time as perf gives it: the mean over the runs (0 when never counted); the share
    // of the enabled time it ran, 100 when the backend measured no time.
    const size_t runs = counted ? e.runs.size() : 0;
    f.push_back(format("%llu", static_cast<unsigned long long>(runs ? e.running_ns() / runs : 0)));
    f.push_back(format("%.2f", counted ? running_pct(e).value_or(100.0) : 100.0));
    metric_fields(counted ? metric_for(e, in) : std::nullopt, f);
    return f;
}

}  // namespace

std::string stat_report_csv(const StatResult &r, const std::string &separator) {
    const MetricInputs in = metric_inputs(r);
    // The variance column follows -r as given, so that a script's columns do not move when
    // a series is interrupted after one run.
    const bool repeated = r.runs_requested > 1;
    std::string out;
    if (r.threads.empty())
        for (const EventOutcome &e : r.events)
            out += join_words(event_fields(e, in, repeated), separator.c_str()) + "\n";
    // --per-thread: each line led by the thread's "comm-tid", as perf stat -x prints it.
    for (const ThreadCounts &t : r.threads) {
        const StatResult view = thread_view(r, t);
        const MetricInputs thread_in = metric_inputs(view);
        for (const EventOutcome &e : view.events) {
            std::vector<std::string> f = event_fields(e, thread_in, false);
            f.insert(f.begin(), thread_label(t));
            out += join_words(f, separator.c_str()) + "\n";
        }
    }
    return out;
}

std::string stat_interval_csv(const StatResult &interval, double time_s, const std::string &separator) {
    const MetricInputs in = metric_inputs(interval);
    std::string out;
    for (const EventOutcome &e : interval.events) {
        std::vector<std::string> f = event_fields(e, in, false);
        f.insert(f.begin(), format("%.9f", time_s));
        out += join_words(f, separator.c_str()) + "\n";
    }
    return out;
}

}  // namespace kpc_cli
