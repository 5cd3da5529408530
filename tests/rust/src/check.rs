//! Status and message checks, read on the calling thread right after the failing call (the
//! last error is thread-local, as a binding must treat it).
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

use crate::enums::ENUM_CONSTANTS;
use crate::sys;

/// Copies a C string the library owns; None for NULL.
pub fn c_string(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

/// The calling thread's last error message (documented never NULL).
pub fn last_message() -> String {
    c_string(unsafe { sys::kp_error_last_message() })
        .expect("kp_error_last_message() returned NULL; it is documented never to")
}

/// "KP_EINVAL (-2)" for a status value, for readable assertion failures.
pub fn status_name(status: c_int) -> String {
    for (ty, name, value) in ENUM_CONSTANTS {
        if *ty == "kp_status" && *value == status as i64 {
            return format!("{} ({})", name, status);
        }
    }
    format!("not a kp_status ({})", status)
}

/// Asserts a call succeeded; on failure shows the code and the library's message.
pub fn expect_ok(rc: c_int, what: &str) {
    if rc != sys::KP_OK {
        panic!(
            "{} failed with {}: {}",
            what,
            status_name(rc),
            last_message()
        );
    }
}

/// Asserts a call failed with `expected`, that the thread's last error agrees, and that
/// the message is not empty; returns the message for further checks.
pub fn expect_status(rc: c_int, expected: sys::kp_status, what: &str) -> String {
    let message = last_message();
    assert_eq!(
        rc,
        expected,
        "{}: expected {}, got {} (message: {:?})",
        what,
        status_name(expected),
        status_name(rc),
        message
    );
    let last = unsafe { sys::kp_error_last_status() };
    assert_eq!(
        last,
        expected,
        "{}: kp_error_last_status() is {}, not the returned {}",
        what,
        status_name(last),
        status_name(expected)
    );
    assert!(
        !message.is_empty(),
        "{}: failed with {} but left no message",
        what,
        status_name(rc)
    );
    message
}
