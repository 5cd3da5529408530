// kpc stat -I MSEC: the counts of each interval while the command (or -p process) runs,
// printed as they come (text or -x CSV) and kept for the JSON report.
#pragma once

#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/stat_result.hpp"

namespace kpc_cli {

class IntervalPrinter {
public:
    // `r` is the result being built (its events described); `countable` says, per event,
    // whether it is among the counts tick() gets. Counting began at `start_ns`.
    IntervalPrinter(StatResult &r, const std::vector<bool> &countable, const Options &o,
                    double start_ns);

    // One interval ends at `now_ns`; `counts` are the running totals of the counted events.
    void tick(const std::vector<ProcessEventCount> &counts, double now_ns);
    // With -o, the interval lines, to go before the final report in the file; else "".
    const std::string &buffered() const { return buffer_; }

private:
    void emit(const std::string &text);

    StatResult &r_;
    std::vector<bool> countable_;
    const Options &o_;
    double start_ns_, last_ns_;
    std::vector<ProcessEventCount> last_;  // the totals at the previous tick
    std::string buffer_;
};

}  // namespace kpc_cli
