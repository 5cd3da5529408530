// kpc: the libkpc command-line tool (docs/cli.md).
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "cli/args.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/error_report.hpp"
#include "cli/stdout_output.hpp"
#include "cli/usage.hpp"
#include "kpc/kpc.h"

using namespace kpc_cli;

namespace {

int run(const Options &o) {
    switch (o.command) {
    case Command::help:
        write_stdout(usage_text(o.help_topic));
        return kExitOk;
    case Command::version:
        write_stdout(std::string("kpc ") + kp_version_string() + "\n");
        return kExitOk;
    case Command::info: return run_info(o);
    case Command::list: return run_list(o);
    case Command::stat: return run_stat(o);
    case Command::check: return run_check(o);
    case Command::diff: return run_diff(o);
    }
    return kExitError;
}

}  // namespace

int main(int argc, char **argv) {
    guard_standard_streams();
    Options o;  // outside the try: errors are reported as JSON under --json
    try {
        o = parse_args(argc, argv);
        int status = run(o);
        check_stdout();
        return status;
    } catch (const UsageError &e) {
        std::fprintf(stderr, "kpc: %s\n\n%s", e.what(), usage_text(e.topic()));
        return kExitUsage;
    } catch (const CliError &e) {
        report_error(o.json, e.what(), e.exit_code(), e.kp_status());
        return e.exit_code();
    } catch (const std::bad_alloc &) {
        report_error(o.json, "out of memory", kExitError, KP_ENOMEM);
    } catch (const std::exception &e) {
        report_error(o.json, std::string("internal error: ") + e.what(), kExitError, KP_ERROR);
    }
    return kExitError;
}
