#include "cli/stat_interval.hpp"

#include <cstdio>

#include "cli/stat_csv.hpp"
#include "cli/stat_report.hpp"

namespace kpc_cli {

IntervalPrinter::IntervalPrinter(StatResult &r, const std::vector<bool> &countable, const Options &o,
                                 double start_ns)
    : r_(r), countable_(countable), o_(o), start_ns_(start_ns), last_ns_(start_ns) {
    r_.interval_ms = o.interval_ms;
}

void IntervalPrinter::emit(const std::string &text) {
    if (!o_.output_path.empty()) {
        buffer_ += text;
        return;
    }
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
}

void IntervalPrinter::tick(const std::vector<ProcessEventCount> &counts, double now_ns) {
    // This interval as a one-run result, so that it prints like a report's event lines.
    StatResult view;
    view.backend = r_.backend;
    view.elapsed_ns = {now_ns - last_ns_};
    view.runs_completed = 1;
    IntervalCounts iv;
    iv.time_ns = now_ns - start_ns_;
    for (size_t i = 0, k = 0; i < r_.events.size(); ++i) {
        EventOutcome e = r_.events[i];
        e.runs.clear();
        std::optional<double> value;
        if (!countable_[i]) {
            e.status = EventStatus::not_supported;
        } else {
            const ProcessEventCount &c = counts.at(k);
            ProcessEventCount before = last_.empty() ? ProcessEventCount{} : last_.at(k);
            ++k;
            ProcessEventCount d = c;  // this interval's share of the running totals
            d.value -= before.value;
            d.enabled_ns -= before.enabled_ns;
            d.running_ns -= before.running_ns;
            if (!c.counted() || (d.enabled_ns > 0 && d.running_ns == 0)) {
                e.status = c.counted() ? EventStatus::not_counted : EventStatus::not_supported;
            } else {
                e.status = EventStatus::counted;
                e.runs = {d};
                value = d.scaled();  // multiplexed during this interval: scaled as a run is
            }
        }
        iv.values.push_back(value);
        view.events.push_back(e);
    }
    const double t = iv.time_ns / 1e9;
    if (!o_.json) {
        if (o_.csv_separator) {
            emit(stat_interval_csv(view, t, *o_.csv_separator));
        } else {
            if (r_.intervals.empty()) emit("#           time             counts unit events\n");
            emit(stat_interval_text(view, t));
        }
    }
    r_.intervals.push_back(iv);
    last_ = counts;
    last_ns_ = now_ns;
}

}  // namespace kpc_cli
