#include "backends/kperf/kperf_errors.hpp"

#include <cerrno>
#include <string>

#include "core/error.hpp"

namespace kpc::kperf {
namespace {

struct KpepCode {
    const char *name;
    const char *meaning;
};

// Codes and meanings as kperfdata defines them (docs/apple.md lists them).
constexpr KpepCode kKpep[] = {
    {"NONE", "no error"},
    {"INVALID_ARGUMENT", "invalid argument"},
    {"OUT_OF_MEMORY", "out of memory"},
    {"IO", "I/O error"},
    {"BUFFER_TOO_SMALL", "buffer too small"},
    {"CUR_SYSTEM_UNKNOWN", "current system unknown"},
    {"DB_PATH_INVALID", "database path invalid"},
    {"DB_NOT_FOUND", "database not found"},
    {"DB_ARCH_UNSUPPORTED", "database architecture unsupported"},
    {"DB_VERSION_UNSUPPORTED", "database version unsupported"},
    {"DB_CORRUPT", "database corrupt"},
    {"EVENT_NOT_FOUND", "event not found"},
    {"CONFLICTING_EVENTS", "conflicting events"},
    {"COUNTERS_NOT_FORCED", "all counters must be forced"},
    {"EVENT_UNAVAILABLE", "event unavailable"},
    {"ERRNO", "check errno"},
};

}  // namespace

const char *const kBusyCauses =
    "another tool owns the CPU performance counters (Instruments, xctrace, powermetrics, or "
    "another process using kpc or libkpc); quit it and retry";

const char *kpep_error_name(int code) {
    if (code < 0 || code >= static_cast<int>(sizeof kKpep / sizeof kKpep[0])) return "UNKNOWN";
    return kKpep[code].name;
}

void throw_kpep(const char *call, int code, const std::string &context) {
    const int saved_errno = errno;  // before anything below can change it
    std::string msg = std::string("kperfdata: ") + call + " failed: kpep error " +
                      std::to_string(code) + " (" + kpep_error_name(code);
    if (code >= 0 && code < static_cast<int>(sizeof kKpep / sizeof kKpep[0]))
        msg += std::string(": ") + kKpep[code].meaning;
    msg += ")";
    if (code == 15) msg += " " + errno_text(saved_errno);
    msg += context;
    fail(KP_EFRAMEWORK, msg, code);
}

int kpc_status(const char *call, int err, std::string *message) {
    std::string head = std::string("kperf: ") + call + " failed: ";
    switch (err) {
    case EBUSY:
        *message = head + kBusyCauses + " " + errno_text(err);
        return KP_EBUSY;
    case EPERM:
    case EACCES:
        *message = head + "permission denied; reading CPU counters on macOS needs root: run "
                          "the program with sudo (or as the kperf.blessed_pid process) " +
                   errno_text(err);
        return KP_EPERM;
    default:
        *message = head + "the kernel refused the request " + errno_text(err);
        return KP_EKERNEL;
    }
}

void throw_kpc(const char *call, int err) {
    std::string msg;
    int status = kpc_status(call, err, &msg);
    fail(status, msg, err);
}

}  // namespace kpc::kperf
