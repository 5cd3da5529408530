// kpc: the libkpc command-line tool (docs/cli.md).
#include <cstdio>
#include <exception>
#include <new>

#include "cli/args.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/usage.hpp"
#include "kpc/kpc.h"

using namespace kpc_cli;

int main(int argc, char **argv) {
    try {
        Options o = parse_args(argc, argv);
        switch (o.command) {
        case Command::help:
            std::fputs(usage_text(o.help_topic), stdout);
            return kExitOk;
        case Command::version:
            std::printf("kpc %s\n", kp_version_string());
            return kExitOk;
        case Command::info: return run_info(o);
        case Command::list: return run_list(o);
        case Command::stat: return run_stat(o);
        case Command::check: return run_check(o);
        }
    } catch (const UsageError &e) {
        std::fprintf(stderr, "kpc: %s\n\n%s", e.what(), usage_text(e.topic()));
        return kExitUsage;
    } catch (const CliError &e) {
        std::fprintf(stderr, "kpc: %s\n", e.what());
        return e.exit_code();
    } catch (const std::bad_alloc &) {
        std::fputs("kpc: out of memory\n", stderr);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "kpc: internal error: %s\n", e.what());
    }
    return kExitError;
}
