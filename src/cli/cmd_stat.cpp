// kpc stat: run a command and count it, like perf stat.
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/stat_attached_processes.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/stat_counted_command.hpp"
#include "cli/stat_plain_command.hpp"
#include "cli/stat_process_watch.hpp"
#include "cli/stat_run_signals.hpp"
#include "cli/sampler.hpp"
#include "cli/stat_csv.hpp"
#include "cli/stat_interval.hpp"
#include "cli/stat_report.hpp"
#include "cli/stat_result.hpp"

namespace kpc_cli {
namespace {

double timeval_ns(const timeval &tv) {
    return static_cast<double>(tv.tv_sec) * 1e9 + static_cast<double>(tv.tv_usec) * 1e3;
}

std::vector<const kp_event_t *> resolve_events(kp_sampler_t *s, const std::vector<std::string> &names) {
    std::vector<const kp_event_t *> events;
    for (const std::string &name : names) {
        const kp_event_t *e = nullptr;
        int rc = kp_sampler_event_find(&e, s, name.c_str());
        if (rc != KP_OK) throw CliError(last_kp_error(rc), kExitStatFailed, rc);
        events.push_back(e);
    }
    return events;
}

EventOutcome describe(const std::string &name, const kp_event_t *e) {
    EventOutcome o;
    o.name = name;
    o.event_name = kp_event_name(e);
    o.native_name = kp_event_native_name(e);
    o.kind = kind_name(kp_event_kind(e));
    o.generic = kp_event_is_generic(e) != 0;
    o.time_ns = kp_event_unit(e) == KP_EVENT_UNIT_NANOSECONDS;
    return o;
}

// Fold one run's count of an event into its outcome. A run that could not count the event
// makes the whole event uncounted: a mean over some runs would mislead.
void add_run(EventOutcome &o, const kp_event_t *e, const ProcessEventCount &c, bool no_pmu) {
    if (o.scope < 0) o.scope = c.scope;
    if (!c.native_name.empty()) o.native_name = c.native_name;
    if (o.status != EventStatus::counted) return;
    if (!c.counted()) {
        // Raw and libpfm4 events are listed as available until tried; the backend's status
        // says whether the machine cannot count them ("not supported") or this run failed.
        bool hardware = kp_event_kind(e) != KP_EVENT_SOFTWARE;
        bool unsupported = !kp_event_is_available(e) || c.status == KP_EUNAVAILABLE ||
                           c.status == KP_EUNSUPPORTED || (hardware && no_pmu);
        o.status = unsupported ? EventStatus::not_supported : EventStatus::not_counted;
        o.reason = !c.error.empty() ? c.error : kp_event_unavailable_reason(e);
        if (o.reason.empty()) o.reason = "the backend could not count the event";
        return;
    }
    if (c.enabled_ns > 0 && c.running_ns == 0) {
        o.status = EventStatus::not_counted;
        o.reason = "the event never got a hardware counter (too many events for the PMU's "
                   "counters; count fewer at once)";
        return;
    }
    o.runs.push_back(c);
}

ProcessEventCount unavailable(const kp_event_t *e) {
    ProcessEventCount c;
    c.status = KP_EUNAVAILABLE;
    c.error = kp_event_unavailable_reason(e);
    return c;
}

void write_report(const std::string &report, const std::string &path) {
    if (path.empty()) {
        std::fputs(report.c_str(), stderr);
        std::fflush(stderr);
        return;
    }
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        throw CliError("cannot write the report to '" + path + "': " + std::strerror(errno),
                       kExitStatFailed);
    bool ok = std::fputs(report.c_str(), f) >= 0;
    ok = (std::fclose(f) == 0) && ok;
    if (!ok) throw CliError("cannot write the report to '" + path + "'", kExitStatFailed);
}

// The events to attach, and which of the requested ones they are. Events the database
// already knows this machine cannot count are reported from it, not attached: a backend may
// refuse a whole set for one unavailable event.
struct Attachable {
    std::vector<bool> countable;  // per requested event
    std::vector<std::string> names;  // as given in -e
    std::vector<int> groups;  // per attached event: its {group} in -e, or -1
    bool no_pmu = false;  // kp_sampler_access says the machine has no usable PMU
};

Attachable attachable(kp_sampler_t *s, const std::vector<const kp_event_t *> &events,
                      const std::vector<std::string> &names, const std::vector<int> &groups) {
    Attachable a;
    a.no_pmu = kp_sampler_access(s) == KP_EUNSUPPORTED;
    kp_error_clear();
    for (size_t i = 0; i < events.size(); ++i) {
        a.countable.push_back(kp_event_is_available(events[i]) != 0);
        if (!a.countable.back()) continue;
        a.names.push_back(names[i]);
        a.groups.push_back(groups[i]);
    }
    if (a.names.empty()) {
        // None can be counted here: libkpc still runs the command (KP_PROCESS_PARTIAL) and
        // each event is reported from the database.
        a.names = names;
        a.groups.assign(names.size(), -1);
    }
    return a;
}

// A group is counted whole or not at all, as perf stat does: its point is that its
// events cover the same time, and a member without a count leaves the others without
// the partner they were grouped with.
void count_groups_whole(StatResult &r) {
    std::map<int, std::string> failed;  // group -> its first member that was not counted
    for (const EventOutcome &e : r.events)
        if (e.group >= 0 && e.status != EventStatus::counted) failed.emplace(e.group, e.name);
    for (EventOutcome &e : r.events) {
        auto it = failed.find(e.group);
        if (it == failed.end() || e.status != EventStatus::counted) continue;
        e.status = EventStatus::not_counted;
        e.reason = "its group has '" + it->second +
                   "', which could not be counted, and a group is counted whole or not at all; "
                   "count this event outside the braces to get its number";
    }
}

StatResult start_result(kp_sampler_t *s, const Options &o, const std::vector<const kp_event_t *> &events) {
    StatResult r;
    r.backend = kp_sampler_backend_name(s);
    r.cpu_id = kp_sampler_cpu_id(s);
    r.cpu_name = kp_sampler_cpu_name(s);
    r.pmu = kp_sampler_pmu_name(s);
    r.command = o.child_argv;
    r.pids = o.pids;
    r.all_cpus = o.all_cpus;
    r.runs_requested = o.repeat;
    for (size_t i = 0; i < events.size(); ++i) {
        r.events.push_back(describe(o.events[i], events[i]));
        r.events.back().group = o.event_groups[i];
    }
    return r;
}

// How one run of a command ended; with `cpu_times`, its user and system times too (not
// for -p and -a, where the command is not what was counted).
void record_exit(StatResult &r, const CommandExit &exit, bool cpu_times) {
    r.elapsed_ns.push_back(exit.elapsed_ns);
    if (cpu_times) {
        r.user_ns.push_back(timeval_ns(exit.usage.ru_utime));
        r.sys_ns.push_back(timeval_ns(exit.usage.ru_stime));
    }
    r.exit_status = exit.exit_status();
    r.signal = exit.term_signal;
}

// --per-thread: every thread's counts, per requested event (unset where not counted).
void add_threads(StatResult &r, const std::vector<const kp_event_t *> &events,
                 const Attachable &attach, std::vector<ThreadCounts> rows) {
    for (ThreadCounts &row : rows) {
        std::vector<std::optional<uint64_t>> values;  // per attached event -> per requested
        for (size_t i = 0, k = 0; i < events.size(); ++i)
            values.push_back(attach.countable[i] ? row.values[k++] : std::nullopt);
        row.values = std::move(values);
        r.threads.push_back(std::move(row));
    }
}

// One run's counts (of the attached events), folded into `r`.
void add_counts(StatResult &r, const std::vector<const kp_event_t *> &events,
                const Attachable &attach, const std::vector<ProcessEventCount> &counts) {
    for (size_t i = 0, k = 0; i < events.size(); ++i)
        add_run(r.events[i], events[i], attach.countable[i] ? counts[k++] : unavailable(events[i]),
                attach.no_pmu);
}

// Wait for `watch`'s processes to end, printing an interval every -I milliseconds with
// `read`'s totals. Signals end the wait only when `stop_on_signal` (-p); returns whether
// one did. Without -I, `refresh` still reads every kRefreshMs: a process's own totals
// (recount) can be read only until its parent reaps it, and a read keeps the library's
// last totals recent, so what a reaped process misses stays small.
constexpr int kRefreshMs = 100;
template <class Read>
bool watch_intervals(ProcessWatch &watch, IntervalPrinter *printer, const Options &o, Read read,
                     bool stop_on_signal, bool refresh = false) {
    double next = now_ns() + o.interval_ms * 1e6;
    for (;;) {
        int timeout = refresh ? kRefreshMs : -1;
        if (printer) timeout = std::max(0, static_cast<int>((next - now_ns()) / 1e6));
        ProcessWatch::Result res = watch.wait(timeout);
        if (res == ProcessWatch::Result::ended) return false;
        if (res == ProcessWatch::Result::timeout && printer) {
            try {
                printer->tick(read(), now_ns());
            } catch (const CliError &e) {
                if (e.kp_status() != KP_ESTATE) throw;
                std::fprintf(stderr, "kpc: -I: no interval counts: %s\n", e.what());
                printer = nullptr;
            }
            // On the grid, unless this tick came late (kpc held back): then the grid starts
            // again from now, so that no interval lasts less than half of -I.
            const double interval = o.interval_ms * 1e6, now = now_ns();
            next += interval;
            if (next < now + interval / 2) next = now + interval;
            continue;
        }
        if (res == ProcessWatch::Result::timeout && refresh) {
            read();
            continue;
        }
        if (stop_on_signal && (RunSignals::interrupted() || RunSignals::received())) return true;
    }
}

// -p and -a: counters kpc attaches (to running processes, or to every CPU) instead of a
// command's own. They count while CMD runs when one is given (kpc starts it; it is counted
// only as far as the targets cover it), else until the processes have all ended (-p) or
// kpc is interrupted (Ctrl-C, SIGTERM, SIGHUP: nothing is passed on to processes kpc did not
// start). No user/sys times: they would be CMD's, not the counted processes'.
void run_attached(kp_sampler_t *s, const Options &o, const std::vector<const kp_event_t *> &events,
                  const Attachable &attach, StatResult &r) {
    const std::vector<int> every_cpu = {KP_PROCESS_SYSTEM_WIDE};
    AttachedProcesses targets(s, attach.names, attach.groups, o.all_cpus ? every_cpu : o.pids);
    if (o.per_thread && targets.thread_count() == 0)
        throw CliError(std::string("--per-thread: the ") + kp_sampler_backend_name(s) +
                           " backend has no per-thread counts of another process (macOS keeps "
                           "none that kpc may read); count without --per-thread",
                       kExitStatFailed);
    r.system_wide = r.system_wide || targets.system_wide();
    const double start = now_ns();
    std::optional<IntervalPrinter> printer;
    if (o.interval_ms) printer.emplace(r, attach.countable, o, start);
    auto read = [&targets] { return targets.read(); };
    if (o.child_argv.empty()) {
        ProcessWatch watch(targets.pids());  // none for every CPU: until a signal
        r.interrupted = watch_intervals(watch, printer ? &*printer : nullptr, o, read, true,
                                        !o.all_cpus);
        r.elapsed_ns.push_back(now_ns() - start);
    } else {
        PlainCommand command(o.child_argv);
        ProcessWatch watch({command.pid()});
        watch_intervals(watch, printer ? &*printer : nullptr, o, read, false);
        record_exit(r, command.wait(), false);
    }
    if (printer) r.interval_text += printer->buffered();
    add_counts(r, events, attach, targets.read());
    if (o.per_thread) add_threads(r, events, attach, targets.read_threads());
    r.runs_completed += 1;
}

// One run of the command, folded into `r`.
void run_once(kp_sampler_t *s, const Options &o, const std::vector<const kp_event_t *> &events,
              const Attachable &attach, StatResult &r) {
    CountedCommand command(s, attach.names, attach.groups, o.child_argv);
    r.system_wide = r.system_wide || command.system_wide();
    if (o.interval_ms) {
        ProcessWatch watch({command.pid()});
        IntervalPrinter printer(r, attach.countable, o, now_ns());
        watch_intervals(watch, &printer, o, [&command] { return command.read(); }, false);
        r.interval_text = printer.buffered();
    }
    CommandExit exit = command.wait();
    add_counts(r, events, attach, command.read());
    record_exit(r, exit, true);
    r.runs_completed += 1;
}

}  // namespace

int run_stat(const Options &o) {
    Sampler sampler(o.backend, kExitStatFailed);
    kp_sampler_t *s = sampler.get();
    std::vector<const kp_event_t *> events = resolve_events(s, o.events);
    Attachable attach = attachable(s, events, o.events, o.event_groups);
    StatResult r = start_result(s, o, events);
    {
        RunSignals signals;
        const bool attached = !o.pids.empty() || o.all_cpus;
        for (int run = 0; run < o.repeat && !RunSignals::received(); ++run) {
            if (attached)
                run_attached(s, o, events, attach, r);
            else
                run_once(s, o, events, attach, r);
            if (o.child_argv.empty()) break;  // -p or -a alone: one span, until it ends
            // Ctrl-C ends the series, as the user asked, but still reports what ran.
            if (r.signal == SIGINT || r.signal == SIGQUIT) {
                r.interrupted = true;
                break;
            }
        }
        // SIGTERM or SIGHUP to kpc: passed on to the command; kpc reports and exits 128+N.
        r.received_signal = RunSignals::received();
        if (r.received_signal) {
            r.interrupted = true;
            r.exit_status = 128 + r.received_signal;
        }
    }
    count_groups_whole(r);
    std::string report = o.json            ? stat_report_json(r)
                         : o.csv_separator ? stat_report_csv(r, *o.csv_separator)
                                           : stat_report_text(r);
    write_report(r.interval_text + report, o.output_path);
    return r.exit_status;
}

}  // namespace kpc_cli
