// kpc stat's report: perf-stat-like text, or JSON (schema kpc-stat/1, docs/cli.md).
#pragma once

#include <string>

#include "cli/stat_result.hpp"

namespace kpc_cli {

std::string stat_report_text(const StatResult &r);
std::string stat_report_json(const StatResult &r);

}  // namespace kpc_cli
