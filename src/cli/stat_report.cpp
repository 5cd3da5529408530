#include "cli/stat_report.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "cli/json_writer.hpp"
#include "cli/stat_metrics.hpp"
#include "cli/run_stats.hpp"
#include "cli/sampler.hpp"
#include "cli/text_format.hpp"
#include "kpc/kpc.h"

namespace kpc_cli {
namespace {

// Column widths of perf stat, so that the two tools' outputs line up alike.
constexpr size_t kCountWidth = 18;
constexpr size_t kUnitWidth = 4;
constexpr size_t kNameWidth = 33;
constexpr size_t kThreadWidth = 24;  // "comm-tid" of --per-thread
constexpr size_t kMetricWidth = 31;

const char *status_id(EventStatus s) {
    switch (s) {
    case EventStatus::not_supported: return "not_supported";
    case EventStatus::not_counted: return "not_counted";
    default: return "counted";
    }
}

// The JSON `source` of a kp_process_scope_t (docs/cli.md).
const char *scope_source(int scope) {
    switch (scope) {
    case KP_PROCESS_SCOPE_SYSTEM: return "system";
    case KP_PROCESS_SCOPE_PROCESS: return "proc_pid_rusage";
    default: return "process";
    }
}

bool multiplexed(const EventOutcome &e) { return e.enabled_ns() != 0 && e.running_ns() < e.enabled_ns(); }

std::string metric_text(const Metric &m) {
    if (m.per_second) {
        const char *prefix = "";
        double v = rate_in_unit(m.value, &prefix);
        return format("%9.3f %s%s", v, prefix, m.unit);
    }
    if (m.percent) return format("%8.2f%% %s", m.value, m.unit);
    return format("%9.3f %s", m.value, m.unit);
}

std::string rtrim(std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

std::string event_line(const EventOutcome &e, const MetricInputs &in, int runs) {
    std::string count, unit;
    if (e.status == EventStatus::counted) {
        double mean = summarize(e.values()).mean;
        if (e.time_ns) {
            count = group_thousands(mean / 1e6, 2);
            unit = "msec";
        } else {
            count = group_thousands(static_cast<uint64_t>(std::llround(mean)));
        }
    } else {
        count = status_label(e.status);
    }
    std::string line = pad_left(count, kCountWidth) + " " + pad_right(unit, kUnitWidth) + " " +
                       pad_right(e.name, kNameWidth);
    if (e.status != EventStatus::counted) return rtrim(line);
    std::optional<Metric> m = metric_for(e, in);
    line += pad_right(m ? "#" + metric_text(*m) : "", kMetricWidth);
    if (runs > 1) line += format("  ( +- %5.2f%% )", summarize(e.values()).stddev_pct);
    if (multiplexed(e)) line += format("  (%.2f%%)", *running_pct(e));
    return rtrim(line);
}

// One note per distinct reason, listing the events it applies to. libkpc's per-event
// reasons leave the event's name out, so one cause reads the same for every event.
std::string reasons_text(const StatResult &r) {
    std::vector<std::pair<std::string, std::string>> notes;  // (label: events, reason)
    std::map<std::string, size_t> index;
    for (const EventOutcome &e : r.events) {
        if (e.status == EventStatus::counted) continue;
        const std::string &reason = e.reason;
        std::string key = std::string(status_label(e.status)) + "\n" + reason;
        auto it = index.find(key);
        if (it == index.end()) {
            index[key] = notes.size();
            notes.push_back({std::string(status_label(e.status)) + ": " + e.name, reason});
        } else {
            notes[it->second].first += ", " + e.name;
        }
    }
    std::string out;
    for (const auto &n : notes) out += " " + n.first + "\n     " + n.second + "\n";
    return out;
}

// null when `s` is empty.
void write_summary(JsonWriter &j, const char *key, const std::optional<Summary> &s) {
    j.key(key);
    if (!s) {
        j.null();
        return;
    }
    j.begin_object();
    j.field("mean", s->mean);
    j.field("stddev", s->stddev);
    j.field("stddev_pct", s->stddev_pct);
    j.field("min", s->min);
    j.field("max", s->max);
    j.key("values");
    j.begin_array();
    for (double v : s->values) j.value(v);
    j.end_array();
    j.end_object();
}

// The counted events whose numbers cover `scope`: nullopt when none do, "" when all do,
// " (of a, b)" when some do.
std::optional<std::string> events_from(const StatResult &r, int scope) {
    std::string names;
    size_t n = 0, counted = 0;
    for (const EventOutcome &e : r.events) {
        if (e.status != EventStatus::counted) continue;
        ++counted;
        if (e.scope != scope) continue;
        names += (n++ ? ", " : "") + e.name;
    }
    if (n == 0) return std::nullopt;
    return n == counted ? "" : " (of " + names + ")";
}

// The groups of -e as written: "{cycles,instructions} {task-clock,page-faults}".
std::string groups_text(const StatResult &r) {
    std::string out;
    const std::vector<EventOutcome> &ev = r.events;
    for (size_t i = 0; i < ev.size(); ++i) {
        if (ev[i].group < 0) continue;
        const bool first = i == 0 || ev[i - 1].group != ev[i].group;
        const bool last = i + 1 == ev.size() || ev[i + 1].group != ev[i].group;
        out += first ? (out.empty() ? "{" : " {") : ",";
        out += ev[i].name;
        if (last) out += "}";
    }
    return out;
}

}  // namespace

const char *status_label(EventStatus s) {
    switch (s) {
    case EventStatus::not_supported: return "<not supported>";
    case EventStatus::not_counted: return "<not counted>";
    default: return "";
    }
}

std::optional<double> running_pct(const EventOutcome &e) {
    if (e.enabled_ns() == 0) return std::nullopt;
    return 100.0 * static_cast<double>(e.running_ns()) / static_cast<double>(e.enabled_ns());
}

MetricInputs metric_inputs(const StatResult &r) {
    MetricInputs in;
    in.elapsed_ns = summarize(r.elapsed_ns).mean;
    std::optional<double> cpu_clock;
    for (const EventOutcome &e : r.events) {
        if (e.status != EventStatus::counted || !e.generic) continue;
        double mean = summarize(e.values()).mean;
        if (e.event_name == "task-clock") in.task_clock_ns = mean;
        else if (e.event_name == "cpu-clock") cpu_clock = mean;
        else if (e.event_name == "cycles") in.cycles = mean;
        else if (e.event_name == "instructions") in.instructions = mean;
        else if (e.event_name == "branches") in.branches = mean;
        else if (e.event_name == "cache-references") in.cache_references = mean;
    }
    if (!in.task_clock_ns) in.task_clock_ns = cpu_clock;
    return in;
}

std::optional<Metric> metric_for(const EventOutcome &e, const MetricInputs &in) {
    if (e.status != EventStatus::counted || e.runs.empty()) return std::nullopt;
    return derive_metric(e.generic ? e.event_name : "", e.time_ns, summarize(e.values()).mean, in);
}

double rate_in_unit(double v, const char **prefix) {
    *prefix = "";
    if (v >= 1e9) v /= 1e9, *prefix = "G";
    else if (v >= 1e6) v /= 1e6, *prefix = "M";
    else if (v >= 1e3) v /= 1e3, *prefix = "K";
    return v;
}

std::string stat_interval_text(const StatResult &interval, double time_s) {
    MetricInputs in = metric_inputs(interval);
    std::string out;
    for (const EventOutcome &e : interval.events)
        out += format("%14.9f ", time_s) + event_line(e, in, 1) + "\n";
    return out;
}

StatResult thread_view(const StatResult &r, const ThreadCounts &t) {
    StatResult v = r;
    v.threads.clear();
    for (size_t i = 0; i < v.events.size(); ++i) {
        EventOutcome &e = v.events[i];
        e.runs.clear();
        if (e.status != EventStatus::counted) continue;
        if (i >= t.values.size() || !t.values[i]) {
            e.status = EventStatus::not_counted;
            continue;
        }
        e.runs.emplace_back().value = *t.values[i];  // per-thread reads give no times
    }
    return v;
}

std::string thread_label(const ThreadCounts &t) { return t.comm + "-" + std::to_string(t.tid); }

// "'make -j8'" for a command, "process id '12,34'" for -p, "'system wide'" for -a (perf's
// words).
std::string counted_what(const StatResult &r) {
    if (r.all_cpus) return "'system wide'";
    if (!r.pids.empty()) {
        std::string ids;
        for (int pid : r.pids) ids += (ids.empty() ? "" : ",") + std::to_string(pid);
        return "process id '" + ids + "'";
    }
    return "'" + join_words(r.command) + "'";
}

std::string stat_report_text(const StatResult &r) {
    MetricInputs in = metric_inputs(r);
    std::string out = "\n Performance counter stats for " + counted_what(r);
    if (r.runs_completed < r.runs_requested)
        out += format(" (%d of %d runs, interrupted)", r.runs_completed, r.runs_requested);
    else if (r.interrupted)
        out += r.runs_requested > 1 ? format(" (%d runs, interrupted)", r.runs_completed) : " (interrupted)";
    else if (r.runs_requested > 1)
        out += format(" (%d runs)", r.runs_completed);
    out += ":\n\n";
    if (r.threads.empty())
        for (const EventOutcome &e : r.events) out += event_line(e, in, r.runs_completed) + "\n";
    for (const ThreadCounts &t : r.threads) {
        const StatResult view = thread_view(r, t);
        const MetricInputs thread_in = metric_inputs(view);
        for (const EventOutcome &e : view.events)
            out += pad_left(thread_label(t), kThreadWidth) + " " + event_line(e, thread_in, 1) + "\n";
    }
    out += "\n";
    Summary elapsed = summarize(r.elapsed_ns);
    if (r.runs_completed > 1) {
        out += format("%18.6f +- %.6f seconds time elapsed  ( +- %5.2f%% )\n", elapsed.mean / 1e9,
                      elapsed.stddev / 1e9, elapsed.stddev_pct);
    } else if (r.user_ns.empty()) {  // -p, -a: no rusage for what kpc did not reap
        out += format("%18.9f seconds time elapsed\n", elapsed.mean / 1e9);
    } else {
        out += format("%18.9f seconds time elapsed\n\n", elapsed.mean / 1e9);
        out += format("%18.9f seconds user\n", summarize(r.user_ns).mean / 1e9);
        out += format("%18.9f seconds sys\n", summarize(r.sys_ns).mean / 1e9);
    }
    if (r.signal) out += format("\n '%s' was killed by signal %d (%s)\n", r.command[0].c_str(), r.signal,
                                strsignal(r.signal));
    if (r.received_signal && r.command.empty())
        out += format("\n kpc received signal %d (%s) and stopped counting%s\n", r.received_signal,
                      strsignal(r.received_signal), r.pids.empty() ? "" : "; the processes run on");
    else if (r.received_signal)
        out += format("\n kpc received signal %d (%s) and passed it on to '%s'\n", r.received_signal,
                      strsignal(r.received_signal), r.command[0].c_str());
    if (r.system_wide && !r.all_cpus)
        out += "\n note: system-wide counts" + events_from(r, KP_PROCESS_SCOPE_SYSTEM).value_or("") + ": the " +
               r.backend +
               " backend cannot count one process, so these include everything the machine "
               "ran while the command did\n";
    if (std::optional<std::string> own = events_from(r, KP_PROCESS_SCOPE_PROCESS))
        out += "\n note: the command's own totals" + *own +
               ", from proc_pid_rusage: every thread of its process, in user and kernel mode, "
               "but not the processes it started\n";
    std::string groups = groups_text(r);
    if (!groups.empty())
        out += "\n note: counted as groups, each group's events over the same time or none of "
               "them: " + groups + "\n";
    std::string cut;
    for (const EventOutcome &e : r.events)
        if (e.cut_short()) cut += (cut.empty() ? "" : ", ") + e.name;
    if (!cut.empty())
        out += "\n note: " + cut + ": a process ended and its parent reaped it before kpc read "
               "its final totals; the counts stop at kpc's last read (every 100 ms, or every -I "
               "interval)\n";
    std::string reasons = reasons_text(r);
    if (!reasons.empty()) out += "\n" + reasons;
    out += "\n";
    return out;
}

std::string stat_report_json(const StatResult &r) {
    MetricInputs in = metric_inputs(r);
    std::string out;
    JsonWriter j(out);
    j.begin_object();
    write_json_header(j, "kpc-stat/1", r.backend.c_str(), r.cpu_id.c_str(), r.cpu_name.c_str(),
                      r.pmu.c_str());
    j.key("command");
    j.begin_array();
    for (const std::string &w : r.command) j.value(w);
    j.end_array();
    j.key("pids");
    j.begin_array();
    for (int pid : r.pids) j.value(static_cast<int64_t>(pid));
    j.end_array();
    j.field("scope", r.system_wide ? "system" : "process");
    j.field("runs", r.runs_completed);
    j.field("runs_requested", r.runs_requested);
    j.field("interrupted", r.interrupted);
    j.field("exit_status", r.exit_status);
    j.field("signal", r.signal ? std::optional<int>(r.signal) : std::nullopt);
    write_summary(j, "elapsed_ns", summarize(r.elapsed_ns));
    j.field("interval_ms", r.interval_ms ? std::optional<int>(r.interval_ms) : std::nullopt);
    j.key("intervals");
    j.begin_array();
    for (const IntervalCounts &iv : r.intervals) {
        j.begin_object();
        j.field("time_ns", iv.time_ns);
        j.key("values");
        j.begin_object();
        for (size_t i = 0; i < iv.values.size() && i < r.events.size(); ++i) {
            j.key(r.events[i].name);
            j.value(iv.values[i]);
        }
        j.end_object();
        j.end_object();
    }
    j.end_array();
    const bool timed = !r.user_ns.empty();  // -p, -a: not measured
    write_summary(j, "user_ns", timed ? std::optional(summarize(r.user_ns)) : std::nullopt);
    write_summary(j, "sys_ns", timed ? std::optional(summarize(r.sys_ns)) : std::nullopt);
    j.key("threads");  // --per-thread; empty otherwise
    j.begin_array();
    for (const ThreadCounts &t : r.threads) {
        j.begin_object();
        j.field("pid", t.pid);
        j.field("tid", t.tid);
        j.field("comm", t.comm);
        j.key("values");  // per event name: the thread's count, null when not counted
        j.begin_object();
        for (size_t i = 0; i < r.events.size(); ++i) {
            j.key(r.events[i].name);
            const bool counted = i < t.values.size() && r.events[i].status == EventStatus::counted;
            j.value(counted ? t.values[i] : std::nullopt);
        }
        j.end_object();
        j.end_object();
    }
    j.end_array();
    j.key("events");
    j.begin_array();
    for (const EventOutcome &e : r.events) {
        bool counted = e.status == EventStatus::counted;
        j.begin_object();
        j.field("name", e.name);
        j.field("event", e.event_name);
        j.field("native_name", e.native_name);
        j.field("kind", e.kind);
        j.field("generic", e.generic);
        // The number of its {group} in -e; null outside braces.
        j.field("group", e.group >= 0 ? std::optional<int>(e.group) : std::nullopt);
        j.field("status", status_id(e.status));
        // Where the number came from; null if the backend never read it.
        j.field("source", e.scope < 0 ? nullptr : scope_source(e.scope));
        j.field("reason", counted ? std::nullopt : std::optional<std::string>(e.reason));
        j.field("unit", e.time_ns ? "ns" : "");
        write_summary(j, "value", counted ? std::optional(summarize(e.values())) : std::nullopt);
        j.key("raw_values");
        j.begin_array();
        if (counted)
            for (const ProcessEventCount &c : e.runs) j.value(c.value);
        j.end_array();
        j.field("time_enabled_ns", e.enabled_ns());
        j.field("time_running_ns", e.running_ns());
        j.field("running_pct", running_pct(e));
        j.field("multiplexed", multiplexed(e));
        j.field("cut_short", e.cut_short());
        j.key("metric");
        if (std::optional<Metric> m = metric_for(e, in)) {
            j.begin_object();
            j.field("id", m->id);
            j.field("value", m->value);
            j.field("unit", m->percent ? std::string("% ") + m->unit : std::string(m->unit));
            j.end_object();
        } else {
            j.null();
        }
        j.end_object();
    }
    j.end_array();
    j.end_object();
    return out;
}

}  // namespace kpc_cli
