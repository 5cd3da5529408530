// The kpc commands. Each returns kpc's exit status and throws CliError on failure.
#pragma once

#include "cli/args.hpp"

namespace kpc_cli {

int run_info(const Options &o);
int run_list(const Options &o);
int run_stat(const Options &o);
int run_check(const Options &o);
int run_diff(const Options &o);

}  // namespace kpc_cli
