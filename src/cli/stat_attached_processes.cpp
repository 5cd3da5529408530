#include "cli/stat_attached_processes.hpp"

#include <fstream>

#include "cli/cli_error.hpp"

namespace kpc_cli {
namespace {

// The thread's name, as /proc shows it (perf stat --per-thread prints "comm-tid").
std::string thread_name(int pid, int tid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
    std::string name;
    if (!std::getline(f, name) || name.empty()) return "?";
    return name;
}

}  // namespace

AttachedProcesses::AttachedProcesses(kp_sampler_t *sampler, const std::vector<std::string> &events,
                                     const std::vector<int> &groups, const std::vector<int> &pids) {
    std::vector<const char *> names;
    for (const std::string &e : events) names.push_back(e.c_str());
    std::vector<int32_t> group_numbers(groups.begin(), groups.end());
    kp_process_options_t opts;
    kp_process_options_init(&opts, KP_PROCESS_OPTIONS_VERSION);
    opts.flags = KP_PROCESS_PARTIAL;  // report per event, as perf stat does
    opts.groups = group_numbers.data();
    for (int pid : pids) {
        kp_process_t *p = nullptr;
        int rc = kp_process_attach_ex(&p, sampler, names.data(), names.size(), pid, &opts);
        if (rc != KP_OK) {
            std::string message = last_kp_error(rc);
            for (kp_process_t *q : processes_) kp_process_free(q);
            throw CliError((pid == KP_PROCESS_SYSTEM_WIDE ? std::string("cannot count every CPU")
                                                          : "cannot count process " + std::to_string(pid)) +
                               ": " + message,
                           kExitStatFailed, rc);
        }
        processes_.push_back(p);
        std::vector<std::string> comms;
        for (size_t t = 0, n = kp_process_thread_count(p); t < n; ++t) {
            int32_t tid = 0;
            std::vector<uint64_t> ignored(names.size());
            if (kp_process_read_thread(p, t, &tid, ignored.data(), nullptr, ignored.size()) != KP_OK)
                tid = 0;
            comms.push_back(tid > 0 ? thread_name(pid, tid) : "?");
        }
        comms_.push_back(std::move(comms));
    }
}

AttachedProcesses::~AttachedProcesses() {
    for (kp_process_t *p : processes_) kp_process_free(p);
}

std::vector<ProcessEventCount> AttachedProcesses::read() {
    std::vector<ProcessEventCount> sum;
    for (kp_process_t *p : processes_) {
        std::vector<ProcessEventCount> counts = read_counts(p);
        if (sum.empty()) {
            sum = counts;
            continue;
        }
        for (size_t i = 0; i < sum.size(); ++i) {
            // Every CPU's count (Apple kperf) is the same for each process: once, not N times.
            if (sum[i].scope == KP_PROCESS_SCOPE_SYSTEM) continue;
            sum[i].value += counts[i].value;
            sum[i].enabled_ns += counts[i].enabled_ns;
            sum[i].running_ns += counts[i].running_ns;
            sum[i].complete = sum[i].complete && counts[i].complete;
        }
    }
    return sum;
}

std::vector<ThreadCounts> AttachedProcesses::read_threads() {
    std::vector<ThreadCounts> rows;
    for (size_t k = 0; k < processes_.size(); ++k) {
        kp_process_t *p = processes_[k];
        // The per-event status is the process's; the rows carry the values.
        const std::vector<ProcessEventCount> totals = read_counts(p);
        const size_t n = kp_process_event_count(p);
        for (size_t t = 0; t < kp_process_thread_count(p); ++t) {
            ThreadCounts row;
            row.pid = kp_process_pid(p);
            std::vector<uint64_t> values(n);
            std::vector<uint8_t> complete(n);
            int32_t tid = 0;
            int rc = kp_process_read_thread(p, t, &tid, values.data(), complete.data(), n);
            if (rc != KP_OK)
                throw CliError("cannot read the counters of a thread: " + last_kp_error(rc),
                               kExitStatFailed, rc);
            row.tid = tid;
            row.comm = t < comms_[k].size() ? comms_[k][t] : "?";
            for (size_t i = 0; i < n; ++i)
                row.values.push_back(totals[i].counted() ? std::optional<uint64_t>(values[i])
                                                         : std::nullopt);
            rows.push_back(std::move(row));
        }
    }
    return rows;
}

size_t AttachedProcesses::thread_count() const {
    size_t n = 0;
    for (kp_process_t *p : processes_) n += kp_process_thread_count(p);
    return n;
}

bool AttachedProcesses::system_wide() const {
    for (kp_process_t *p : processes_)
        if (counts_system_wide(p)) return true;
    return false;
}

std::vector<pid_t> AttachedProcesses::pids() const {
    std::vector<pid_t> pids;
    for (kp_process_t *p : processes_)
        if (kp_process_pid(p) > 0) pids.push_back(static_cast<pid_t>(kp_process_pid(p)));
    return pids;
}

}  // namespace kpc_cli
