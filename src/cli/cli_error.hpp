// Errors of the kpc tool and the exit codes they map to.
#pragma once

#include <stdexcept>
#include <string>

namespace kpc_cli {

// Exit codes of kpc itself. `kpc stat` otherwise exits with the child's status, so its own
// failures use the codes env(1) and timeout(1) use, which a child rarely returns.
enum ExitCode {
    kExitOk = 0,
    kExitError = 1,          // info/list failed
    kExitUsage = 2,          // bad command line
    kExitCheckFailed = 3,    // kpc check: at least one check failed
    kExitCannotCount = 4,    // kpc check: no check could count anything here
    kExitDiffGate = 1,       // kpc diff: an event grew past its --fail-above threshold
    kExitDiffInput = 2,      // kpc diff: the files cannot be read or compared (as diff(1))
    kExitStatFailed = 125,   // kpc stat failed before or after running the command
    kExitCannotRun = 126,    // the command exists but could not be executed
    kExitNotFound = 127,     // the command was not found
};

// A failure reported as "kpc: <message>" on stderr, exiting with `exit_code`.
// `kp_status` is the libkpc status behind it (0 = none), shown in --json error reports.
class CliError : public std::runtime_error {
public:
    CliError(const std::string &message, int exit_code, int kp_status = 0)
        : std::runtime_error(message), exit_code_(exit_code), kp_status_(kp_status) {}
    int exit_code() const noexcept { return exit_code_; }
    int kp_status() const noexcept { return kp_status_; }

private:
    int exit_code_;
    int kp_status_;
};

// A bad command line: the message, then the usage of `topic` ("" = kpc itself), on stderr.
class UsageError : public std::runtime_error {
public:
    UsageError(const std::string &message, std::string topic)
        : std::runtime_error(message), topic_(std::move(topic)) {}
    const std::string &topic() const noexcept { return topic_; }

private:
    std::string topic_;
};

// The detailed message of the kp_* call that just failed with `status` on this thread
// (kp_error_last_message), or kp_strerror(status) when the library left none.
std::string last_kp_error(int status);

// kpc stat's exit status when its command could not be executed, from the exec's errno
// alone, as shells decide: 127 when not found (ENOENT), 126 otherwise.
int exec_failure_exit(int exec_errno);

// "KP_EPERM" for KP_EPERM, ...; "KP_ERROR" for codes this build does not know.
const char *status_name(int status);

}  // namespace kpc_cli
