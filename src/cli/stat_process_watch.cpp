#include "cli/stat_process_watch.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <string>

#if defined(__linux__)
#include <sys/syscall.h>
#endif

namespace kpc_cli {
namespace {

// Where there is no pidfd (macOS, Linux before 5.3), how often to look.
constexpr int kPollSliceMs = 50;

long long now_ms() { return static_cast<long long>(now_ns() / 1e6); }

int open_pidfd(pid_t pid) {
#if defined(__linux__) && defined(SYS_pidfd_open)
    return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
    (void)pid;
    return -1;
#endif
}

// Without a pidfd: gone, or (Linux) a zombie its parent has not reaped yet.
bool gone(pid_t pid) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
#if defined(__linux__)
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    size_t paren = line.rfind(')');
    return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
#else
    return false;
#endif
}

}  // namespace

double now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

ProcessWatch::ProcessWatch(const std::vector<pid_t> &pids)
    : pids_(pids), ended_(pids.size(), false) {
    for (pid_t pid : pids_) fds_.push_back(open_pidfd(pid));
}

ProcessWatch::~ProcessWatch() {
    for (int fd : fds_)
        if (fd >= 0) close(fd);
}

bool ProcessWatch::ended(size_t i) {
    if (ended_[i]) return true;
    if (fds_[i] >= 0) {
        pollfd p{fds_[i], POLLIN, 0};
        ended_[i] = poll(&p, 1, 0) > 0;
    } else {
        ended_[i] = gone(pids_[i]);
    }
    return ended_[i];
}

ProcessWatch::Result ProcessWatch::wait(int timeout_ms) {
    long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    for (;;) {
        bool all = true;
        std::vector<pollfd> waiting;
        bool without_fd = false;
        for (size_t i = 0; i < pids_.size(); ++i) {
            if (ended(i)) continue;
            all = false;
            if (fds_[i] >= 0)
                waiting.push_back(pollfd{fds_[i], POLLIN, 0});
            else
                without_fd = true;
        }
        if (all && !pids_.empty()) return Result::ended;  // none: wait for a signal or the timeout
        long long left = deadline < 0 ? -1 : deadline - now_ms();
        if (deadline >= 0 && left <= 0) return Result::timeout;
        int slice = left < 0 ? -1 : static_cast<int>(left);
        if (without_fd) slice = slice < 0 ? kPollSliceMs : std::min(slice, kPollSliceMs);
        int n = poll(waiting.data(), waiting.size(), slice);
        if (n < 0 && errno == EINTR) return Result::signal;
    }
}

}  // namespace kpc_cli
