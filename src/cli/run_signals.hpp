// What signals do to kpc stat while it runs the command.
//  - SIGINT, SIGQUIT (Ctrl-C, Ctrl-\): ignored. The terminal sends them to the whole
//    process group, so they stop the command and kpc survives to report, as perf stat and
//    time(1) do.
//  - SIGTERM, SIGHUP: passed on to the command (kill(1) and a closed terminal address kpc
//    alone, which would otherwise die and leave the command running, orphaned). kpc waits
//    for the command, reports, and exits 128+N.
// A signal kpc's parent set to be ignored stays ignored (nohup keeps working).
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace kpc_cli {

class RunSignals {
public:
    RunSignals();
    ~RunSignals();  // kpc's own dispositions again
    RunSignals(const RunSignals &) = delete;
    RunSignals &operator=(const RunSignals &) = delete;

    // The first SIGTERM or SIGHUP kpc received meanwhile, or 0.
    static int received();
};

// Used by ChildProcess, so that a signal is never lost or caught by the wrong process
// between fork and exec (harmless when no RunSignals is alive):
//   before fork:               old = block_forwarded_signals();
//   in the child, before exec: restore_signals_for_exec(old);  (async-signal-safe)
//   in kpc after fork:         forward_signals_to(pid, old);   (pid -1: to nobody)
sigset_t block_forwarded_signals();
void restore_signals_for_exec(const sigset_t &mask);
void forward_signals_to(pid_t pid, const sigset_t &mask);
// Once the command has exited but before it is reaped, so a late signal never reaches a
// recycled pid.
void stop_forwarding_signals();

}  // namespace kpc_cli
