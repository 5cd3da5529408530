#include "cli/stat_run_signals.hpp"

#include <sys/wait.h>

#include <cerrno>
#include <csignal>

namespace kpc_cli {
namespace {

constexpr int kIgnored[] = {SIGINT, SIGQUIT};
constexpr int kForwarded[] = {SIGTERM, SIGHUP};
constexpr int kCount = 4;

// Written by the handler or read by it: only sig_atomic_t, and only while the handler is
// installed or the signals are blocked.
volatile std::sig_atomic_t g_target = -1;   // the command's pid, or -1
volatile std::sig_atomic_t g_received = 0;  // first forwarded signal kpc got
int g_saved_signo[kCount];
struct sigaction g_saved[kCount];

void forward(int sig) {
    if (g_received == 0) g_received = sig;
    pid_t pid = static_cast<pid_t>(g_target);
    if (pid > 0) kill(pid, sig);
}

// SIGINT and SIGQUIT: caught and dropped rather than ignored, because libkpc starts the
// command with kpc's dispositions and an exec resets only caught signals to the default.
// Recorded for kpc stat -p, where Ctrl-C ends the counting (there is no command to stop).
volatile std::sig_atomic_t g_interrupted = 0;

void drop(int sig) {
    if (g_interrupted == 0) g_interrupted = sig;
}

void save_and_set(int slot, int sig, void (*handler)(int)) {
    struct sigaction sa {};
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = handler;
    sigaction(sig, nullptr, &g_saved[slot]);
    g_saved_signo[slot] = sig;
    if (g_saved[slot].sa_handler == SIG_IGN) return;  // ignored by our parent: keep it so
    sigaction(sig, &sa, nullptr);
}

}  // namespace

RunSignals::RunSignals() {
    g_received = 0;
    g_interrupted = 0;
    g_target = -1;
    int slot = 0;
    for (int sig : kIgnored) save_and_set(slot++, sig, drop);
    for (int sig : kForwarded) save_and_set(slot++, sig, forward);
}

RunSignals::~RunSignals() {
    for (int i = 0; i < kCount; ++i) sigaction(g_saved_signo[i], &g_saved[i], nullptr);
    g_target = -1;
}

int RunSignals::received() { return g_received; }

int RunSignals::interrupted() { return g_interrupted; }

void forward_signals_to(pid_t pid) {
    g_target = pid;
    // A signal that came before there was a command to pass it to.
    if (pid > 0 && g_received != 0) kill(pid, g_received);
}

void stop_forwarding_signals() { g_target = -1; }

void wait_exit_then_stop_forwarding(pid_t pid) {
    siginfo_t info;
    while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    stop_forwarding_signals();
}

}  // namespace kpc_cli
