// kpc stat -x SEP: the report as perf stat -x prints it, one line per event, fields in
// perf's order: value, unit, event, [variance with -r], run time (ns), percentage of the
// time counted, metric value, metric unit. No header, no notes: docs/cli.md.
#pragma once

#include <string>

#include "cli/stat_result.hpp"

namespace kpc_cli {

std::string stat_report_csv(const StatResult &r, const std::string &separator);
// kpc stat -I -x SEP: one interval, each line led by the time in seconds (perf's order).
std::string stat_interval_csv(const StatResult &interval, double time_s, const std::string &separator);

}  // namespace kpc_cli
