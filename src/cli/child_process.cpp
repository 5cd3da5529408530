#include "cli/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/cli_error.hpp"
#include "cli/run_signals.hpp"

namespace kpc_cli {
namespace {

double now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

void close_fd(int &fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

// Runs in the forked child: only async-signal-safe calls until exec.
[[noreturn]] void child_main(int go_fd, int err_fd, char *const *argv, const sigset_t &mask) {
    char go = 0;
    ssize_t n;
    do {
        n = read(go_fd, &go, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) _exit(kExitStatFailed);  // kpc gave up before the command ran
    restore_signals_for_exec(mask);
    execvp(argv[0], argv);
    int err = errno;
    ssize_t w;
    do {
        w = write(err_fd, &err, sizeof err);
    } while (w < 0 && errno == EINTR);
    _exit(err == ENOENT ? kExitNotFound : kExitCannotRun);
}

}  // namespace

int ChildExit::exit_status() const {
    if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
    return kExitStatFailed;
}

int ChildExit::signal() const { return WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0; }

ChildProcess::ChildProcess(const std::vector<std::string> &argv) {
    // Everything the child needs is built before fork: it must not allocate afterwards.
    std::vector<char *> cargv;
    for (const std::string &a : argv) cargv.push_back(const_cast<char *>(a.c_str()));
    cargv.push_back(nullptr);

    int go[2], err[2];
    if (pipe2(go, O_CLOEXEC) != 0)
        throw CliError(std::string("cannot create a pipe: ") + std::strerror(errno), kExitStatFailed);
    if (pipe2(err, O_CLOEXEC) != 0) {
        int e = errno;
        close(go[0]);
        close(go[1]);
        throw CliError(std::string("cannot create a pipe: ") + std::strerror(e), kExitStatFailed);
    }
    // Buffered output would otherwise be written twice if the child ever flushed it.
    std::fflush(stdout);
    std::fflush(stderr);
    sigset_t mask = block_forwarded_signals();
    pid_ = fork();
    if (pid_ == 0) {
        close(go[1]);
        close(err[0]);
        child_main(go[0], err[1], cargv.data(), mask);
    }
    int fork_errno = errno;
    forward_signals_to(pid_, mask);
    close(go[0]);
    close(err[1]);
    go_fd_ = go[1];
    exec_err_fd_ = err[0];
    if (pid_ < 0) {
        close_fd(go_fd_);
        close_fd(exec_err_fd_);
        throw CliError(std::string("cannot start '") + argv[0] + "': fork failed: " +
                           std::strerror(fork_errno),
                       kExitStatFailed);
    }
}

ChildProcess::~ChildProcess() {
    stop_forwarding_signals();  // the pid is about to be reaped
    if (!started_) reap_unstarted();
    if (started_ && !waited_) {
        // Only reached when kpc fails mid-run: do not leave a zombie or a stray command.
        kill(pid_, SIGKILL);
        int st;
        while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
        }
    }
    close_fd(go_fd_);
    close_fd(exec_err_fd_);
}

void ChildProcess::reap_unstarted() noexcept {
    close_fd(go_fd_);  // EOF: the child exits without exec
    int st;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    started_ = waited_ = true;
}

int ChildProcess::start() {
    started_ = true;
    start_ns_ = now_ns();
    char go = 1;
    ssize_t w;
    do {
        w = write(go_fd_, &go, 1);
    } while (w < 0 && errno == EINTR);
    close_fd(go_fd_);
    // EOF here means exec succeeded (the pipe is close-on-exec); an int is its errno.
    int exec_errno = 0;
    ssize_t n;
    do {
        n = read(exec_err_fd_, &exec_errno, sizeof exec_errno);
    } while (n < 0 && errno == EINTR);
    close_fd(exec_err_fd_);
    if (w != 1) return EPIPE;
    return n == static_cast<ssize_t>(sizeof exec_errno) ? exec_errno : 0;
}

ChildExit ChildProcess::wait(const std::function<void()> &exited) {
    ChildExit ex;
    // Wait for the exit without reaping, so that a signal kpc passes on meanwhile can only
    // reach this command (a zombie still holds its pid); then stop passing them on and reap.
    siginfo_t info;
    int w;
    do {
        w = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT);
    } while (w < 0 && errno == EINTR);
    stop_forwarding_signals();
    if (w == 0 && exited) exited();
    pid_t r;
    do {
        r = wait4(pid_, &ex.wait_status, 0, &ex.usage);
    } while (r < 0 && errno == EINTR);
    ex.elapsed_ns = now_ns() - start_ns_;
    waited_ = true;
    if (r < 0)
        throw CliError(std::string("waiting for the command failed: ") + std::strerror(errno),
                       kExitStatFailed);
    return ex;
}

}  // namespace kpc_cli
