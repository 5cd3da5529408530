// The one rule for reading KPC_* variables that choose code to load or a backend: a
// privileged process (setuid, setgid, file capabilities) ignores them, as glibc ignores
// LD_PRELOAD there and macOS strips DYLD_*. Every such variable is read through
// code_selecting_env(), so a variable added later gets the rule by using it.
#pragma once

#include <string>

#include "core/error.hpp"

namespace kpc {

// Why this process must not let its environment choose code, e.g. "setuid process";
// "" when it may.
std::string privileged_reason();

// The value of `name`, or nullptr when it is unset, empty, or ignored because the process
// is privileged (then the name is remembered for ignored_environment_note()).
const char *code_selecting_env(const char *name);

// "KPC_BACKEND, KPC_KPERF_PATH ignored (setuid process)" once a variable has been ignored;
// "" otherwise.
std::string ignored_environment_note();

// `e` with ignored_environment_note() and its remedy appended, for errors the ignored
// variables may explain; `e` unchanged when nothing was ignored.
Error with_environment_note(const Error &e);

// Tests only: behave as if privileged_reason() were `reason` ("" = not privileged), or
// return to the real check with nullptr. Also forgets the variables ignored so far.
void set_privileged_reason_for_testing(const char *reason);

}  // namespace kpc
