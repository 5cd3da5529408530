#include "core/environment.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <vector>

#if defined(__linux__)
#include <sys/auxv.h>
#endif

namespace kpc {
namespace {

std::mutex mu;
std::optional<std::string> test_reason;  // set by set_privileged_reason_for_testing
std::vector<std::string> ignored;        // names refused so far, in first-read order

std::string real_privileged_reason() {
#if defined(__APPLE__)
    // True for the life of a process started setuid/setgid, even after it drops privileges.
    if (issetugid()) return "setuid or setgid process";
#else
    // AT_SECURE is the kernel's verdict at exec (secure_getenv's criterion); it stays set
    // after the program changes its ids, so the ids only name the likely cause.
    if (getauxval(AT_SECURE)) {
        if (getuid() != geteuid()) return "setuid process";
        if (getgid() != getegid()) return "setgid process";
        return "secure-execution process: setuid, setgid or file capabilities";
    }
#endif
    return "";
}

}  // namespace

std::string privileged_reason() {
    {
        std::lock_guard<std::mutex> lock(mu);
        if (test_reason) return *test_reason;
    }
    return real_privileged_reason();
}

const char *code_selecting_env(const char *name) {
    const char *v = std::getenv(name);
    if (!v || !*v) return nullptr;
    if (privileged_reason().empty()) return v;
    std::lock_guard<std::mutex> lock(mu);
    if (std::find(ignored.begin(), ignored.end(), name) == ignored.end()) ignored.push_back(name);
    return nullptr;
}

std::string ignored_environment_note() {
    std::string names;
    {
        std::lock_guard<std::mutex> lock(mu);
        for (const std::string &n : ignored) names += (names.empty() ? "" : ", ") + n;
    }
    if (names.empty()) return "";
    return names + " ignored (" + privileged_reason() + ")";
}

Error with_environment_note(const Error &e) {
    std::string note = ignored_environment_note();
    if (note.empty()) return e;
    return Error(e.status(),
                 e.message() + "; note: " + note +
                     ", so the defaults were used; a privileged program that means to load "
                     "other frameworks passes them in kp_sampler_options_t",
                 e.os_code());
}

void set_privileged_reason_for_testing(const char *reason) {
    std::lock_guard<std::mutex> lock(mu);
    if (reason)
        test_reason = reason;
    else
        test_reason.reset();
    ignored.clear();
}

}  // namespace kpc
