#include "cli/error_report.hpp"

#include <cstdio>

#include "cli/cli_error.hpp"
#include "cli/json_writer.hpp"
#include "kpc/kpc.h"

namespace kpc_cli {

void report_error(bool json, const std::string &message, int exit_status, int kp_status) {
    if (!json) {
        std::fprintf(stderr, "kpc: %s\n", message.c_str());
        return;
    }
    std::string out;
    JsonWriter j(out);
    j.begin_object();
    j.field("schema", "kpc-error/1");
    j.field("kpc_version", kp_version_string());
    j.field("message", message);
    j.field("exit_status", exit_status);
    j.field_or_null("status", kp_status != KP_OK, status_name(kp_status));
    j.field_or_null("code", kp_status != KP_OK, kp_status);
    j.end_object();
    std::fputs(out.c_str(), stderr);
}

}  // namespace kpc_cli
