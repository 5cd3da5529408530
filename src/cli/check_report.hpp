// kpc check: the report, as text for people or as JSON (schema kpc-check/1), on stdout.
#pragma once

#include <vector>

#include "cli/check_environment.hpp"
#include "cli/check_verdicts.hpp"
#include "kpc/kpc.h"

namespace kpc_cli {

void print_check_text(kp_sampler_t *s, const Environment &env,
                      const std::vector<CheckResult> &results, int exit_status);
void print_check_json(kp_sampler_t *s, const Environment &env,
                      const std::vector<CheckResult> &results, int exit_status);

}  // namespace kpc_cli
