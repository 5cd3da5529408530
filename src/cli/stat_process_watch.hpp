// Waiting, with a deadline, for processes to end: kpc stat's loop for -p (processes kpc did
// not start, so it cannot wait(2) for them) and -I (a tick while the command runs).
#pragma once

#include <sys/types.h>

#include <vector>

namespace kpc_cli {

// CLOCK_MONOTONIC in nanoseconds: kpc stat's clock for elapsed times and -I ticks.
double now_ns();

class ProcessWatch {
public:
    enum class Result { ended, timeout, signal };

    // `pids` must exist now. Never reaps anything: a zombie counts as ended. With no pids,
    // wait() returns only on the timeout or a signal (kpc stat -a without a command).
    explicit ProcessWatch(const std::vector<pid_t> &pids);
    ~ProcessWatch();
    ProcessWatch(const ProcessWatch &) = delete;
    ProcessWatch &operator=(const ProcessWatch &) = delete;

    // Blocks until every process has ended (ended), `timeout_ms` passed (timeout; -1: no
    // limit), or a signal arrived meanwhile (signal: the caller checks RunSignals and
    // calls again).
    Result wait(int timeout_ms);

private:
    bool ended(size_t i);

    std::vector<pid_t> pids_;
    std::vector<int> fds_;  // Linux: a pidfd per process (readable once it ended), or -1
    std::vector<bool> ended_;
};

}  // namespace kpc_cli
