#include "cli/stat_plain_command.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "cli/cli_error.hpp"
#include "cli/stat_process_watch.hpp"
#include "cli/stat_run_signals.hpp"

extern char **environ;

namespace kpc_cli {

PlainCommand::PlainCommand(const std::vector<std::string> &argv) {
    std::vector<char *> args;
    for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    // Before the spawn: the command may have run to its end by the time posix_spawnp returns.
    start_ns_ = now_ns();
    int err = posix_spawnp(&pid_, args[0], nullptr, nullptr, args.data(), environ);
    if (err != 0) {
        pid_ = -1;
        throw CliError("cannot run '" + argv[0] + "': " + std::strerror(err), exec_failure_exit(err));
    }
    forward_signals_to(pid_);
}

PlainCommand::~PlainCommand() {
    stop_forwarding_signals();
    if (pid_ > 0 && !reaped_) {
        kill(pid_, SIGKILL);
        while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {}
    }
}

CommandExit PlainCommand::wait() {
    CommandExit ex;
    wait_exit_then_stop_forwarding(pid_);
    ex.elapsed_ns = now_ns() - start_ns_;
    int status = 0;
    pid_t r;
    do {
        r = wait4(pid_, &status, 0, &ex.usage);
    } while (r < 0 && errno == EINTR);
    reaped_ = true;
    if (r != pid_)
        throw CliError(std::string("waiting for the command failed: ") + std::strerror(errno),
                       kExitStatFailed);
    if (WIFEXITED(status)) ex.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) ex.term_signal = WTERMSIG(status);
    return ex;
}

}  // namespace kpc_cli
