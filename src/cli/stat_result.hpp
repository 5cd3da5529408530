// What kpc stat measured, independent of how it is printed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kpc/kpc.h"

namespace kpc_cli {

enum class EventStatus {
    counted,
    not_supported,  // this machine or OS cannot count the event
    not_counted,    // it could in principle, but did not (permission, never scheduled, ...)
};

// One event's count as libkpc read it (kp_process_read_full, kp_process_event_status): the
// whole command or -p span, one -I interval, or one thread (value only).
struct ProcessEventCount {
    int status = KP_OK;  // not KP_OK: not counted, `error` says why
    uint64_t value = 0;
    uint64_t enabled_ns = 0;  // 0 when the backend does not measure it
    uint64_t running_ns = 0;
    std::string error;
    int scope = -1;  // kp_process_scope_t (kp_process_event_scope), or -1 when never read
    bool complete = true;  // kp_process_read_full's: false when multiplexed, or cut short
    std::string native_name;  // what the handle counts (kperf: maybe not the listed candidate)

    bool counted() const { return status == KP_OK; }
    // Multiplexed: the full-time count estimated from the share of time it ran, as perf does.
    double scaled() const {
        double v = static_cast<double>(value);
        if (running_ns > 0 && running_ns < enabled_ns)
            v = v * static_cast<double>(enabled_ns) / static_cast<double>(running_ns);
        return v;
    }
};

struct EventOutcome {
    std::string name;         // as given on the command line
    std::string event_name;   // kp_event_name: the generic name for generic events
    std::string native_name;  // kp_event_native_name
    std::string kind;         // fixed / configurable / software
    bool generic = false;
    bool time_ns = false;     // the value is nanoseconds (kp_event_unit)
    int group = -1;           // the number of its {group} in -e, or -1
    EventStatus status = EventStatus::counted;
    std::string reason;       // why not counted (first failing run); empty when counted
    // What the counts cover (kp_process_scope_t of its first read), or -1 if never read.
    int scope = -1;
    std::vector<ProcessEventCount> runs;  // per run, as read; empty unless counted

    std::vector<double> values() const {  // per run, scaled up for multiplexing
        std::vector<double> v;
        for (const ProcessEventCount &c : runs) v.push_back(c.scaled());
        return v;
    }
    uint64_t enabled_ns() const {  // summed over runs
        uint64_t t = 0;
        for (const ProcessEventCount &c : runs) t += c.enabled_ns;
        return t;
    }
    uint64_t running_ns() const {
        uint64_t t = 0;
        for (const ProcessEventCount &c : runs) t += c.running_ns;
        return t;
    }
    // A per-process total (recount) of a process that ended and was reaped before kpc read
    // its final count: incomplete with no multiplexing times, the last value read.
    bool cut_short() const {
        for (const ProcessEventCount &c : runs)
            if (!c.complete && c.enabled_ns == 0) return true;
        return false;
    }
};

// kpc stat -I: one interval's counts.
struct IntervalCounts {
    double time_ns = 0;  // from the start of counting to the end of this interval
    // Per event: its count during this interval (scaled for multiplexing), or unset when
    // it was not counted.
    std::vector<std::optional<double>> values;
};

// kpc stat --per-thread: one thread's counts.
struct ThreadCounts {
    int pid = 0;
    int tid = 0;
    std::string comm;  // its name when attached
    // Per event: its count in this thread (and the threads it created since), or unset when
    // the event was not counted.
    std::vector<std::optional<uint64_t>> values;
};

struct StatResult {
    std::string backend, cpu_id, cpu_name, pmu;
    std::vector<std::string> command;
    std::vector<int> pids;     // -p: the running processes counted instead of a command
    bool system_wide = false;  // counts cover every CPU, not only the command (kperf, -a)
    bool all_cpus = false;     // -a: every CPU was asked for
    int runs_requested = 1;
    int runs_completed = 0;
    bool interrupted = false;  // a run was ended by SIGINT/SIGQUIT, or kpc got SIGTERM/SIGHUP
    int received_signal = 0;   // SIGTERM or SIGHUP kpc received and passed on, or 0
    std::vector<EventOutcome> events;
    std::vector<double> elapsed_ns, user_ns, sys_ns;  // per run
    int exit_status = 0;  // kpc's: the last run's exit code or 128+signal; 128+received_signal
    int signal = 0;       // the signal that ended the last run, or 0
    int interval_ms = 0;  // -I, or 0
    std::vector<IntervalCounts> intervals;
    std::string interval_text;  // -I with -o: the interval lines, written before the report
    std::vector<ThreadCounts> threads;  // --per-thread, else empty
};

}  // namespace kpc_cli
