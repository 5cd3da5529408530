// Every extern "C" entry point runs its body through guarded(): no C++ exception crosses
// the C boundary, and every failure leaves a status and message in the thread's last error.
#pragma once

#include <exception>
#include <new>

#include "core/error.hpp"

namespace kpc {

template <typename Body>
int guarded(Body &&body) noexcept {
    try {
        return body();
    } catch (const Error &e) {
        return record_error(e);
    } catch (const std::bad_alloc &) {
        return record_error(KP_ENOMEM, "out of memory");
    } catch (const std::exception &e) {
        return record_error(KP_ERROR, e.what());
    } catch (...) {
        return record_error(KP_ERROR, "unexpected internal error");
    }
}

}  // namespace kpc
