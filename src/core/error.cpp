#include "core/error.hpp"

#include <cstring>
#include <string>

namespace kpc {
namespace {

struct LastError {
    int status = KP_OK;
    int os_code = 0;
    std::string message;
};

LastError &last() noexcept {
    thread_local LastError state;
    return state;
}

}  // namespace

void fail(int status, std::string message, int os_code) {
    throw Error(status, std::move(message), os_code);
}

int record_error(int status, const char *message, int os_code) noexcept {
    LastError &e = last();
    e.status = status;
    e.os_code = os_code;
    try {
        e.message.assign(message ? message : "");
    } catch (...) {
        e.message.clear();  // capacity kept from earlier messages; may still be empty
    }
    return status;
}

void reserve_error_message() noexcept {
    try {
        last().message.reserve(1024);
    } catch (...) {
        // Out of memory now: a later message may allocate or degrade, as record_error says.
    }
}

int record_error(const Error &err) noexcept {
    return record_error(err.status(), err.what(), err.os_code());
}

std::string errno_text(int err) {
    return "[errno " + std::to_string(err) + ": " + std::strerror(err) + "]";
}

}  // namespace kpc

// Accessors used by src/capi/errors.cpp.
namespace kpc::detail {
const char *last_message() noexcept { return last().message.c_str(); }
int last_status() noexcept { return last().status; }
int last_os_code() noexcept { return last().os_code; }
void clear_last() noexcept {
    LastError &e = last();
    e.status = KP_OK;
    e.os_code = 0;
    e.message.clear();
}
}  // namespace kpc::detail
