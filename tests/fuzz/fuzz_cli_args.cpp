// libFuzzer target: the kpc command-line parser (src/cli/args.cpp). The input's
// newline-separated words are argv after "kpc". Parsing either yields Options that keep the
// promises of args.hpp or throws UsageError; nothing else may escape.
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/cli_error.hpp"
#include "cli/usage.hpp"
#include "fuzz_input.hpp"

namespace {

constexpr size_t kMaxWords = 64;

void check_options(const kpc_cli::Options &o) {
    using kpc_cli::Command;
    KPC_FUZZ_CHECK(o.repeat >= 1 && o.repeat <= 100000, std::to_string(o.repeat));
    KPC_FUZZ_CHECK(*kpc_cli::usage_text(o.help_topic) != '\0', o.help_topic);
    if (o.command == Command::stat) {
        // Something to count: a command, -p processes (with or without a command) or -a;
        // never -a with -p.
        KPC_FUZZ_CHECK(!o.child_argv.empty() || !o.pids.empty() || o.all_cpus, "stat with nothing to count");
        KPC_FUZZ_CHECK(!(o.all_cpus && !o.pids.empty()), "-a with -p");
        for (int pid : o.pids) KPC_FUZZ_CHECK(pid > 0, "pid " + std::to_string(pid));
        KPC_FUZZ_CHECK(o.pids.empty() || o.repeat == 1, "-p with -r");
        KPC_FUZZ_CHECK(!o.all_cpus || !o.child_argv.empty() || o.repeat == 1, "-a alone with -r");
        // --per-thread: the threads of -p processes, at the end (not with -I).
        KPC_FUZZ_CHECK(!o.per_thread || (!o.pids.empty() && o.interval_ms == 0), "--per-thread without -p, or with -I");
        KPC_FUZZ_CHECK(o.interval_ms == 0 || (o.interval_ms >= 10 && o.interval_ms <= 86400000),
                       "-I " + std::to_string(o.interval_ms));
        KPC_FUZZ_CHECK(o.interval_ms == 0 || o.repeat == 1, "-I with -r");
        KPC_FUZZ_CHECK(!o.events.empty(), "stat without events");
        for (const std::string &e : o.events) {
            KPC_FUZZ_CHECK(!e.empty(), "empty event name");
            KPC_FUZZ_CHECK(e.find_first_of("{}") == std::string::npos, "a brace in event name " + e);
        }
        // Groups: one entry per event; each group's events are adjacent, and groups are
        // numbered 0, 1, ... in the order they appear.
        KPC_FUZZ_CHECK(o.event_groups.size() == o.events.size(), "groups do not match events");
        int next = 0;
        for (size_t i = 0; i < o.event_groups.size(); ++i) {
            int g = o.event_groups[i];
            if (g < 0) {
                KPC_FUZZ_CHECK(g == -1, std::to_string(g));
                continue;
            }
            bool continues = i > 0 && o.event_groups[i - 1] == g;
            KPC_FUZZ_CHECK(continues || g == next, "group " + std::to_string(g) + " out of order");
            if (!continues) ++next;
        }
        if (o.csv_separator) {
            KPC_FUZZ_CHECK(!o.csv_separator->empty(), "an empty -x separator");
            KPC_FUZZ_CHECK(o.csv_separator->find('\n') == std::string::npos, "a newline in -x");
            KPC_FUZZ_CHECK(!o.json, "-x together with --json");
        }
    } else {
        KPC_FUZZ_CHECK(o.child_argv.empty(), "a command outside stat");
        // -e and -x belong to stat (`kpc stat -e x --help` keeps them, unused, for help).
        if (o.command != Command::help) {
            KPC_FUZZ_CHECK(o.events.empty() && o.event_groups.empty(), "events outside stat");
            KPC_FUZZ_CHECK(!o.csv_separator, "-x outside stat");
            KPC_FUZZ_CHECK(o.pids.empty() && o.interval_ms == 0, "-p or -I outside stat");
            KPC_FUZZ_CHECK(!o.all_cpus && !o.per_thread, "-a or --per-thread outside stat");
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kpc_fuzz::FuzzInput in(data, size);
    std::vector<std::string> words = in.words(kMaxWords);
    std::vector<const char *> argv{"kpc"};
    for (const std::string &w : words) argv.push_back(w.c_str());
    argv.push_back(nullptr);
    try {
        check_options(kpc_cli::parse_args(static_cast<int>(argv.size() - 1), argv.data()));
    } catch (const kpc_cli::UsageError &e) {
        KPC_FUZZ_CHECK(*e.what() != '\0', "a usage error without a message");
        KPC_FUZZ_CHECK(*kpc_cli::usage_text(e.topic()) != '\0', e.topic());
    } catch (const std::exception &e) {
        kpc_fuzz::fail("parse_args threw something other than UsageError", e.what());
    }
    return 0;
}
