#include "kpc/errors.h"

namespace kpc::detail {
const char *last_message() noexcept;
int last_status() noexcept;
int last_os_code() noexcept;
void clear_last() noexcept;
}  // namespace kpc::detail

extern "C" {

const char *kp_strerror(int status) {
    switch (status) {
    case KP_OK: return "success";
    case KP_ERROR: return "internal error";
    case KP_EINVAL: return "invalid argument";
    case KP_ENOMEM: return "out of memory";
    case KP_ELOAD: return "framework or symbol could not be loaded";
    case KP_EPERM: return "permission denied";
    case KP_EBUSY: return "counters are busy (held by another tool or process)";
    case KP_EUNSUPPORTED: return "not supported on this machine";
    case KP_EUNKNOWN_EVENT: return "unknown event";
    case KP_EUNAVAILABLE: return "event not available on this machine";
    case KP_ECONFLICT: return "events cannot be counted together";
    case KP_EWRONG_THREAD: return "handle used from a thread other than its creator";
    case KP_ESTATE: return "invalid state (not started, or sampler released)";
    case KP_ELAYOUT: return "framework struct layout not recognised";
    case KP_EFRAMEWORK: return "kperfdata framework error";
    case KP_EKERNEL: return "kernel refused the operation";
    case KP_EBUFSIZE: return "buffer too small";
    case KP_EPARTIAL: return "values are partial (events were multiplexed)";
    case KP_EEXEC: return "the command could not be executed";
    default: return "unknown status";
    }
}

const char *kp_error_last_message(void) { return kpc::detail::last_message(); }
int kp_error_last_status(void) { return kpc::detail::last_status(); }
int kp_error_last_os_code(void) { return kpc::detail::last_os_code(); }
void kp_error_clear(void) { kpc::detail::clear_last(); }

}
