// Internal error type and the thread-local "last error" behind kpc/errors.h.
// Cold paths throw kpc::Error; the C shims catch it and record it (see src/capi/guard.hpp).
// The hot path (kp_thread_sample) never throws: it calls record_error() and returns a code.
#pragma once

#include <exception>
#include <string>

#include "kpc/errors.h"

namespace kpc {

class Error : public std::exception {
public:
    Error(int status, std::string message, int os_code = 0)
        : status_(status), os_code_(os_code), message_(std::move(message)) {}
    int status() const noexcept { return status_; }
    int os_code() const noexcept { return os_code_; }
    const char *what() const noexcept override { return message_.c_str(); }
    const std::string &message() const noexcept { return message_; }

private:
    int status_;
    int os_code_;
    std::string message_;
};

// Throw an Error. `os_code` is an errno or kpep code, 0 if none.
[[noreturn]] void fail(int status, std::string message, int os_code = 0);

// Record a failure as the calling thread's last error; returns `status` for convenience.
// Never throws (on allocation failure the message degrades to kp_strerror(status)).
int record_error(int status, const char *message, int os_code = 0) noexcept;
int record_error(const Error &e) noexcept;
// Sizes the calling thread's message storage so that recording a message of up to 1 KiB
// allocates nothing (kp_thread_sample's statuses must not touch the heap); called where a
// thread creates a handle. Never throws.
void reserve_error_message() noexcept;

// "text [errno N: strerror]" for messages that quote an errno.
std::string errno_text(int err);

}  // namespace kpc
