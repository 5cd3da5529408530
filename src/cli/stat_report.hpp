// kpc stat's report: perf-stat-like text, or JSON (schema kpc-stat/1, docs/cli.md).
#pragma once

#include <optional>
#include <string>

#include "cli/stat_metrics.hpp"
#include "cli/stat_result.hpp"

namespace kpc_cli {

std::string stat_report_text(const StatResult &r);
std::string stat_report_json(const StatResult &r);
// kpc stat -I: one interval as text lines, each led by the time in seconds, as perf -I
// prints them. `interval` holds that interval's counts as a one-run result.
std::string stat_interval_text(const StatResult &interval, double time_s);

// Shared with the CSV report (stat_csv.hpp).
// "<not supported>" / "<not counted>" as perf prints them; "" when counted.
const char *status_label(EventStatus s);
// Percentage of the enabled time the event was on a counter; unset when not measured.
std::optional<double> running_pct(const EventOutcome &e);
// The mean counts the derived metrics need, and one event's metric (unset when none).
MetricInputs metric_inputs(const StatResult &r);
std::optional<Metric> metric_for(const EventOutcome &e, const MetricInputs &in);
// A per-second rate in the largest unit that keeps it at 1 or more: 12345 -> 12.345, "K".
double rate_in_unit(double per_second, const char **prefix);
// --per-thread: `r` as if thread `t` had been all that was counted (one run of its values),
// so that its lines and metrics are printed as a whole result's are.
StatResult thread_view(const StatResult &r, const ThreadCounts &t);
// "comm-tid", as perf stat --per-thread labels a thread.
std::string thread_label(const ThreadCounts &t);

}  // namespace kpc_cli
