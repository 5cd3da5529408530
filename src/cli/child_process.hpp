// Launching the command kpc stat counts: fork, hold the child until its counters are
// attached, then let it exec and wait for it.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace kpc_cli {

struct ChildExit {
    int wait_status = 0;   // as from waitpid
    struct rusage usage {};  // the child's (and its reaped descendants') resource usage
    double elapsed_ns = 0;  // wall time from the exec go-ahead to the child's exit
    // kpc's exit status for this child: its exit code, or 128+signal.
    int exit_status() const;
    // The signal that killed the child, or 0.
    int signal() const;
};

class ChildProcess {
public:
    // Forks a child that waits, before exec, for start(). Throws CliError.
    explicit ChildProcess(const std::vector<std::string> &argv);
    // A child never started is told to exit without running the command, and reaped.
    ~ChildProcess();
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;

    pid_t pid() const { return pid_; }

    // Let the child exec the command. Returns 0 once the exec succeeded, or the errno of the
    // failed exec (the child then exits 127 for ENOENT, 126 otherwise).
    int start();
    // Wait for the child to end. Call once, after start(). `exited` (may be empty) runs
    // once the child has exited and before it is reaped: its totals are still readable.
    ChildExit wait(const std::function<void()> &exited = {});

private:
    void reap_unstarted() noexcept;

    pid_t pid_ = -1;
    int go_fd_ = -1;        // parent's end of the go-ahead pipe
    int exec_err_fd_ = -1;  // parent's end of the exec-failure pipe
    bool started_ = false;
    bool waited_ = false;
    double start_ns_ = 0;
};

}  // namespace kpc_cli
