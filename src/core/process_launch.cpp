#include "core/process_launch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "core/error.hpp"

namespace kpc {
namespace {

constexpr int kExecFailed = 127;

// pipe2(O_CLOEXEC) where it exists (atomic: no fork of another thread sees the descriptors
// without the flag); macOS has only pipe().
int cloexec_pipe(int fds[2]) {
#if defined(__linux__)
    return pipe2(fds, O_CLOEXEC);
#else
    if (pipe(fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
#endif
}

// f(), again while it fails with EINTR; its last result.
template <typename F>
auto retry_eintr(F f) {
    decltype(f()) r;
    do {
        r = f();
    } while (r < 0 && errno == EINTR);
    return r;
}

void close_fd(int &fd) noexcept {
    if (fd >= 0) close(fd);
    fd = -1;
}

// Runs in the forked child: only async-signal-safe calls until exec (the caller may have
// other threads, whose locks the child inherits held).
[[noreturn]] void child_main(int go_fd, int err_fd, char *const *argv) {
    char go = 0;
    ssize_t n = retry_eintr([&] { return read(go_fd, &go, 1); });
    if (n != 1) _exit(kExecFailed);  // the parent gave up before the exec
    execvp(argv[0], argv);
    int err = errno;
    retry_eintr([&] { return write(err_fd, &err, sizeof err); });
    _exit(kExecFailed);
}

std::string exec_hint(int err) {
    switch (err) {
    case ENOENT: return "no such program: check its name, or PATH";
    case EACCES: return "permission denied: is it an executable file?";
    case ENOEXEC: return "not an executable format this system runs";
    case E2BIG: return "the arguments are too long";
    default: return "the system refused to run it";
    }
}

}  // namespace

HeldChild::HeldChild(const std::vector<std::string> &argv) : program_(argv.at(0)) {
    // Everything the child needs is built before fork: it must not allocate afterwards.
    std::vector<char *> cargv;
    for (const std::string &a : argv) cargv.push_back(const_cast<char *>(a.c_str()));
    cargv.push_back(nullptr);

    int go[2], err[2];
    if (cloexec_pipe(go) != 0) {
        int e = errno;
        fail(KP_EKERNEL, "cannot start '" + program_ + "': pipe() failed " + errno_text(e), e);
    }
    if (cloexec_pipe(err) != 0) {
        int e = errno;
        close(go[0]);
        close(go[1]);
        fail(KP_EKERNEL, "cannot start '" + program_ + "': pipe() failed " + errno_text(e), e);
    }
    pid_ = fork();
    if (pid_ == 0) {
        close(go[1]);
        close(err[0]);
        child_main(go[0], err[1], cargv.data());
    }
    int fork_errno = errno;
    close(go[0]);
    close(err[1]);
    go_fd_ = go[1];
    exec_err_fd_ = err[0];
    if (pid_ < 0) {
        close_fd(go_fd_);
        close_fd(exec_err_fd_);
        reaped_ = true;
        fail(KP_EKERNEL, "cannot start '" + program_ + "': fork() failed " + errno_text(fork_errno),
             fork_errno);
    }
}

HeldChild::~HeldChild() {
    close_fd(go_fd_);
    close_fd(exec_err_fd_);
    if (!reaped_) kill_and_reap();
}

void HeldChild::kill_and_reap() noexcept {
    // SIGKILL rather than closing the go-ahead pipe: another thread's fork may hold a copy
    // of its write end, and the child would then wait forever.
    kill(pid_, SIGKILL);
    int st;
    retry_eintr([&] { return waitpid(pid_, &st, 0); });
    reaped_ = true;
}

void HeldChild::exec() {
    char go = 1;
    ssize_t w = retry_eintr([&] { return write(go_fd_, &go, 1); });
    int write_errno = errno;
    close_fd(go_fd_);
    if (w != 1) {
        kill_and_reap();
        fail(KP_EKERNEL, "cannot start '" + program_ + "': the held child is gone " +
                             errno_text(write_errno), write_errno);
    }
    // EOF means the exec succeeded (the pipe is close-on-exec); an int is its errno.
    int exec_errno = 0;
    ssize_t n = retry_eintr([&] { return read(exec_err_fd_, &exec_errno, sizeof exec_errno); });
    close_fd(exec_err_fd_);
    if (n != static_cast<ssize_t>(sizeof exec_errno)) return;
    kill_and_reap();
    fail(KP_EEXEC, "cannot run '" + program_ + "': " + exec_hint(exec_errno) + " " + errno_text(exec_errno),
         exec_errno);
}

int HeldChild::wait_exited() const noexcept {
    siginfo_t info;
    int w = retry_eintr([&] { return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT); });
    return w == 0 ? 0 : errno;
}

ProcessExit HeldChild::reap() {
    int status = 0;
    pid_t r = retry_eintr([&] { return waitpid(pid_, &status, 0); });
    int err = errno;
    reaped_ = true;
    if (r < 0)
        fail(KP_ESTATE,
             "process " + std::to_string(pid_) +
                 " was reaped by someone else (waitpid(-1), or SIGCHLD set to SIG_IGN), so its "
                 "exit status is lost; let kp_process_wait reap the processes libkpc starts " +
                 errno_text(err),
             err);
    ProcessExit out;
    if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) out.term_signal = WTERMSIG(status);
    return out;
}

}  // namespace kpc
