// How kpc reports its own failures on stderr: "kpc: <message>", or, when the command was
// given --json, one JSON object (schema kpc-error/1) carrying the same message, so that a
// script reading kpc's JSON never has to parse text.
#pragma once

#include <string>

namespace kpc_cli {

// `kp_status` is the libkpc status behind the failure, or 0 (KP_OK) when there is none.
void report_error(bool json, const std::string &message, int exit_status, int kp_status);

}  // namespace kpc_cli
