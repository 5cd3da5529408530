#include "cli/cli_error.hpp"

#include <cerrno>

#include "kpc/kpc.h"

namespace kpc_cli {

std::string last_kp_error(int status) {
    const char *msg = kp_error_last_message();
    if (msg && *msg) return msg;
    return kp_strerror(status);
}

int exec_failure_exit(int exec_errno) {
    return exec_errno == ENOENT ? kExitNotFound : kExitCannotRun;
}

const char *status_name(int status) {
    switch (status) {
    case KP_OK: return "KP_OK";
    case KP_EINVAL: return "KP_EINVAL";
    case KP_ENOMEM: return "KP_ENOMEM";
    case KP_ELOAD: return "KP_ELOAD";
    case KP_EPERM: return "KP_EPERM";
    case KP_EBUSY: return "KP_EBUSY";
    case KP_EUNSUPPORTED: return "KP_EUNSUPPORTED";
    case KP_EUNKNOWN_EVENT: return "KP_EUNKNOWN_EVENT";
    case KP_EUNAVAILABLE: return "KP_EUNAVAILABLE";
    case KP_ECONFLICT: return "KP_ECONFLICT";
    case KP_EWRONG_THREAD: return "KP_EWRONG_THREAD";
    case KP_ESTATE: return "KP_ESTATE";
    case KP_ELAYOUT: return "KP_ELAYOUT";
    case KP_EFRAMEWORK: return "KP_EFRAMEWORK";
    case KP_EKERNEL: return "KP_EKERNEL";
    case KP_EBUFSIZE: return "KP_EBUFSIZE";
    case KP_EPARTIAL: return "KP_EPARTIAL";
    case KP_EEXEC: return "KP_EEXEC";
    default: return "KP_ERROR";
    }
}

}  // namespace kpc_cli
