// The command of kpc stat -a: started by kpc itself and not counted apart (every CPU's
// counters cover it), waited for with kpc's signals passed on to it, as CountedCommand.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "cli/stat_counted_command.hpp"

namespace kpc_cli {

class PlainCommand {
public:
    // Starts `argv` (posix_spawnp). Throws CliError: exit 127 when not found, 126 when it
    // cannot be executed.
    explicit PlainCommand(const std::vector<std::string> &argv);
    ~PlainCommand();  // a command not waited for is killed and reaped
    PlainCommand(const PlainCommand &) = delete;
    PlainCommand &operator=(const PlainCommand &) = delete;

    // Waits for the command to end, passing kpc's SIGTERM and SIGHUP on to it meanwhile,
    // and reaps it. Call once.
    CommandExit wait();
    pid_t pid() const { return pid_; }

private:
    pid_t pid_ = -1;
    bool reaped_ = false;
    double start_ns_ = 0;
};

}  // namespace kpc_cli
