// A command started for counting (kp_process_spawn): forked, held before its exec until
// its counters are attached, then let go, waited for and reaped.
#pragma once

#include <string>
#include <vector>

namespace kpc {

struct ProcessExit {
    int exit_code = -1;   // 0-255 when it exited, else -1
    int term_signal = 0;  // the signal that killed it, else 0
};

class HeldChild {
public:
    // Forks a child that waits, before exec, for exec(). Throws kpc::Error: KP_EKERNEL when
    // fork or pipe fails.
    explicit HeldChild(const std::vector<std::string> &argv);
    // A child not yet reaped is killed (SIGKILL) and reaped: no process outlives its handle.
    ~HeldChild();
    HeldChild(const HeldChild &) = delete;
    HeldChild &operator=(const HeldChild &) = delete;

    int pid() const noexcept { return pid_; }
    // Let the child exec. Returns once the exec succeeded; throws KP_EEXEC naming the
    // program, with the exec's errno as its OS code, after reaping the child if it failed.
    void exec();
    // Blocks until the child has exited, without reaping it (a zombie still answers
    // questions about itself). Returns 0 or the errno (ECHILD: someone else reaped it).
    int wait_exited() const noexcept;
    // Reaps the exited child. Throws KP_ESTATE if someone else reaped it.
    ProcessExit reap();

private:
    void kill_and_reap() noexcept;

    std::string program_;
    int pid_ = -1;
    int go_fd_ = -1;        // our end of the go-ahead pipe
    int exec_err_fd_ = -1;  // our end of the pipe the child writes a failed exec's errno to
    bool reaped_ = false;
};

}  // namespace kpc
