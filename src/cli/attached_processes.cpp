#include "cli/attached_processes.hpp"

#include "cli/cli_error.hpp"

namespace kpc_cli {

AttachedProcesses::AttachedProcesses(kp_sampler_t *sampler, const std::vector<std::string> &events,
                                     const std::vector<int> &pids) {
    std::vector<const char *> names;
    for (const std::string &e : events) names.push_back(e.c_str());
    for (int pid : pids) {
        kp_process_t *p = nullptr;
        int rc = kp_process_attach(&p, sampler, names.data(), names.size(), pid);
        if (rc != KP_OK) {
            std::string message = last_kp_error(rc);
            for (kp_process_t *q : processes_) kp_process_free(q);
            throw CliError("cannot count process " + std::to_string(pid) + ": " + message,
                           kExitStatFailed, rc);
        }
        processes_.push_back(p);
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
            if (sum[i].source == "system") continue;
            sum[i].value += counts[i].value;
            sum[i].enabled_ns += counts[i].enabled_ns;
            sum[i].running_ns += counts[i].running_ns;
        }
    }
    return sum;
}

bool AttachedProcesses::system_wide() const {
    for (kp_process_t *p : processes_)
        if (counts_system_wide(p)) return true;
    return false;
}

std::vector<pid_t> AttachedProcesses::pids() const {
    std::vector<pid_t> pids;
    for (kp_process_t *p : processes_) pids.push_back(static_cast<pid_t>(kp_process_pid(p)));
    return pids;
}

}  // namespace kpc_cli
