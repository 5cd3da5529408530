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
    // The first SIGINT or SIGQUIT kpc received meanwhile, or 0.
    static int interrupted();
};

// Used by CountedCommand once libkpc has started the command (harmless when no RunSignals
// is alive): a SIGTERM or SIGHUP that came while it was being started is passed on then.
// kpc catches every one of these signals, never sets them to SIG_IGN, so the command's exec
// gives it the default dispositions (except those kpc's parent ignored).
void forward_signals_to(pid_t pid);
// Once the command has exited but before it is reaped, so a late signal never reaches a
// recycled pid.
void stop_forwarding_signals();
// Waits for `pid` to exit without reaping it, so that a signal passed on meanwhile can only
// reach that process (a zombie still holds its pid), then stops passing signals on. The
// caller reaps it next.
void wait_exit_then_stop_forwarding(pid_t pid);

}  // namespace kpc_cli
