//! Status codes and the error every fallible call returns.

use std::fmt;
use std::os::raw::c_int;

use crate::ffi;

/// libkpc's status codes (`kp_status` in kpc/errors.h), with the same stable values.
/// libkpc only adds codes at the end, hence `non_exhaustive`.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Status {
    /// `KP_ERROR`: internal error not covered by another code; also any code this crate
    /// does not know (see [`SamplerError::code`]).
    Error = -1,
    /// `KP_EINVAL`: invalid argument (a bad event list, a name listed twice, a NUL byte).
    InvalidArgument = -2,
    /// `KP_ENOMEM`: out of memory, or a sampler's 4096 looked-up events are taken.
    OutOfMemory = -3,
    /// `KP_ELOAD`: a framework or symbol could not be loaded (the message names it).
    LoadFailed = -4,
    /// `KP_EPERM`: permission denied. Run as root (macOS) or lower
    /// `kernel.perf_event_paranoid` (Linux); the message gives the exact fix.
    PermissionDenied = -5,
    /// `KP_EBUSY`: the counters are held by someone else (another tool or process).
    Busy = -6,
    /// `KP_EUNSUPPORTED`: not supported here (no PMU, unknown CPU, backend not built).
    Unsupported = -7,
    /// `KP_EUNKNOWN_EVENT`: no event of that name; the message suggests close names.
    UnknownEvent = -8,
    /// `KP_EUNAVAILABLE`: the event exists but this machine or OS cannot count it.
    Unavailable = -9,
    /// `KP_ECONFLICT`: the events cannot be counted together (counter constraints).
    Conflict = -10,
    /// `KP_EWRONG_THREAD`: a handle was used from a thread other than its creator.
    WrongThread = -11,
    /// `KP_ESTATE`: not started yet, or the sampler was released.
    BadState = -12,
    /// `KP_ELAYOUT`: an Apple framework struct layout libkpc does not understand.
    Layout = -13,
    /// `KP_EFRAMEWORK`: Apple's kperfdata framework failed ([`SamplerError::os_code`] has its code).
    Framework = -14,
    /// `KP_EKERNEL`: the kernel refused an operation ([`SamplerError::os_code`] has the errno).
    Kernel = -15,
    /// `KP_EBUFSIZE`: a caller buffer is too small.
    BufferTooSmall = -16,
    /// `KP_EPARTIAL`: the kernel multiplexed the handle's events: the values are partial
    /// (use [`ThreadSampler::sample_full`](crate::ThreadSampler::sample_full) for the
    /// scaling times). `sample` and `calibrate` return it.
    Partial = -17,
    /// `KP_EEXEC`: the command of [`Sampler::spawn`](crate::Sampler::spawn) could not be
    /// executed (not found, not executable); [`SamplerError::os_code`] is the exec's errno
    /// (`ENOENT` when not found).
    Exec = -18,
}

impl Status {
    /// The status of a negative libkpc return code; [`Status::Error`] for codes this crate
    /// does not know.
    pub fn from_code(code: i32) -> Status {
        use Status::*;
        match code {
            -2 => InvalidArgument,
            -3 => OutOfMemory,
            -4 => LoadFailed,
            -5 => PermissionDenied,
            -6 => Busy,
            -7 => Unsupported,
            -8 => UnknownEvent,
            -9 => Unavailable,
            -10 => Conflict,
            -11 => WrongThread,
            -12 => BadState,
            -13 => Layout,
            -14 => Framework,
            -15 => Kernel,
            -16 => BufferTooSmall,
            -17 => Partial,
            -18 => Exec,
            _ => Error,
        }
    }

    /// libkpc's short text for the code (`kp_strerror`), e.g. "permission denied".
    pub fn text(self) -> String {
        strerror(self as c_int)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// A failed libkpc call: the [`Status`] to match on, and libkpc's message, which names the
/// cause and the fix (e.g. "perf_event_open(cycles): hardware events are not supported on
/// this machine (virtual machine without a PMU?) ...").
///
/// The message is read on the failing thread right after the failing C call, before any
/// other libkpc call, so it always belongs to this failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamplerError {
    status: Status,
    code: i32,
    message: String,
    os_code: i32,
}

impl SamplerError {
    /// Reads the calling thread's last-error state for the code a libkpc call just returned.
    #[cold]
    #[inline(never)]
    pub(crate) fn last(code: c_int) -> SamplerError {
        // SAFETY: thread-local reads; the message is copied before any other libkpc call.
        let message = ffi::owned(unsafe { ffi::kp_error_last_message() }).unwrap_or_default();
        SamplerError {
            status: Status::from_code(code),
            code,
            message,
            os_code: unsafe { ffi::kp_error_last_os_code() },
        }
    }

    /// An error detected by this crate before calling libkpc.
    pub(crate) fn new(status: Status, message: String) -> SamplerError {
        SamplerError {
            status,
            code: status as i32,
            message,
            os_code: 0,
        }
    }

    /// An error for a status code libkpc reported other than as a return value (e.g. an
    /// event's status), with its own text.
    pub(crate) fn with_code(code: c_int, message: String) -> SamplerError {
        SamplerError {
            status: Status::from_code(code),
            code,
            message,
            os_code: 0,
        }
    }

    /// What went wrong, as an enum to match on.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The raw code libkpc returned (equal to `status() as i32` for codes this crate knows).
    pub fn code(&self) -> i32 {
        self.code
    }

    /// libkpc's detailed message: the cause and what to do. May be empty for some codes.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The OS or framework code behind the failure: an errno (perf_event and kpc calls) or
    /// a kpep error code (kperfdata); 0 when there is none. The message says which.
    pub fn os_code(&self) -> i32 {
        self.os_code
    }
}

impl fmt::Display for SamplerError {
    /// `<message> [<status text>, code <code>]`, or the status text alone when the message
    /// is empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = strerror(self.code);
        if self.message.is_empty() {
            write!(f, "{} [code {}]", text, self.code)
        } else {
            write!(f, "{} [{}, code {}]", self.message, text, self.code)
        }
    }
}

impl std::error::Error for SamplerError {}

/// `kp_strerror`: "unknown status" for codes libkpc does not know.
fn strerror(code: c_int) -> String {
    // SAFETY: kp_strerror accepts any int and returns a static string.
    ffi::owned(unsafe { ffi::kp_strerror(code) }).unwrap_or_default()
}

/// `Result` with [`SamplerError`].
pub type Result<T> = std::result::Result<T, SamplerError>;

/// `Ok(())` for `KP_OK`, else the calling thread's last error. Call it directly on the
/// C call's result, with no libkpc call in between.
#[inline(always)]
pub(crate) fn check(code: c_int) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(SamplerError::last(code))
    }
}
