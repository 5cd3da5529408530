// The kpc command line, parsed into one Options value. Parsing never touches the library.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kpc/sampler.h"

namespace kpc_cli {

enum class Command { help, version, info, list, stat, check };

struct Options {
    Command command = Command::help;
    std::string help_topic;                // Command::help: "" (kpc), "info", "list", "stat" or "check"
    bool json = false;                     // --json
    std::optional<kp_backend_t> backend;   // --backend; unset = KPC_BACKEND, then the platform's
    std::vector<std::string> events;       // stat -e, split at commas; empty = the defaults
    int repeat = 1;                        // stat -r
    std::string output_path;               // stat -o; empty = stderr
    std::vector<std::string> child_argv;   // stat: the command to run
    bool quick = false;                    // check --quick
};

// Parse argv. Throws UsageError (see cli_error.hpp) on anything it does not understand.
Options parse_args(int argc, const char *const *argv);

// The events `kpc stat` counts when -e is not given (the same set perf stat shows).
const std::vector<std::string> &default_stat_events();

}  // namespace kpc_cli
