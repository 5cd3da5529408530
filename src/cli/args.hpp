// The kpc command line, parsed into one Options value. Parsing never touches the library.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kpc/sampler.h"

namespace kpc_cli {

enum class Command { help, version, info, list, stat, check, diff };

struct Options {
    Command command = Command::help;
    std::string help_topic;                // Command::help: "" (kpc) or a command's name
    bool json = false;                     // --json, -j
    std::optional<kp_backend_t> backend;   // --backend; unset = KPC_BACKEND, then the platform's
    std::vector<std::string> events;       // stat -e, split at commas; empty = the defaults
    // Per event: the number of its {group} in -e (0, 1, ... in order), or -1 outside braces.
    std::vector<int> event_groups;
    int repeat = 1;                        // stat -r
    std::string output_path;               // stat -o; empty = stderr
    std::optional<std::string> csv_separator;  // stat -x SEP: CSV report (never with json)
    std::vector<std::string> child_argv;   // stat: the command to run
    std::vector<int> pids;                 // stat -p: running processes to count instead
    int interval_ms = 0;                   // stat -I: print the counts every this often; 0 = no
    bool all_cpus = false;                 // stat -a: every CPU, during the command or until Ctrl-C
    bool per_thread = false;               // stat --per-thread: -p's counts per thread
    bool quick = false;                    // check --quick
    std::vector<std::string> diff_files;   // diff: BASE.json NEW.json
    // diff --fail-above [EVENT=]PCT, in the order given; "" = every event.
    std::vector<std::pair<std::string, double>> fail_above;
    double alpha = 0.05;                   // diff --alpha
};

// Append the events of one -e value to `names`, and to `groups` the number of the {group}
// each is in (`next_group` and up, counting on) or -1: "{a,b},c" gives a b c and 0 0 -1.
// Throws UsageError naming the problem (empty name, nested or unbalanced braces, empty
// group, text after '}').
void add_event_list(const std::string &list, std::vector<std::string> &names,
                    std::vector<int> &groups, int &next_group, const std::string &topic);

// Parse argv. Throws UsageError (see cli_error.hpp) on anything it does not understand.
Options parse_args(int argc, const char *const *argv);

// Append the ids of a -p value ("12,34") to `pids`. Throws UsageError.
void parse_pids(const std::string &list, std::vector<int> &pids, const std::string &topic);
// The milliseconds of a -I value (10 to a day). Throws UsageError.
int parse_interval(const std::string &text, const std::string &topic);

// The events `kpc stat` counts when -e is not given (the same set perf stat shows).
const std::vector<std::string> &default_stat_events();

}  // namespace kpc_cli
