//! Creating samplers and thread handles through the C API, with the backend chosen
//! explicitly so an ambient KPC_BACKEND does not change what a test exercises.
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::ptr;

use crate::check::{expect_ok, last_message};
use crate::sys;

/// Options for `backend`, initialised the documented way (kp_sampler_options_init).
pub fn options(backend: sys::kp_backend_t) -> sys::kp_sampler_options_t {
    let mut opts = sys::kp_sampler_options_t {
        version: 0,
        backend: 0,
        kperf_path: ptr::null(),
        kperfdata_path: ptr::null(),
        user_reads: 0,
    };
    expect_ok(
        unsafe { sys::kp_sampler_options_init(&mut opts, sys::KP_SAMPLER_OPTIONS_VERSION) },
        "kp_sampler_options_init",
    );
    opts.backend = backend;
    opts
}

/// kp_sampler_new with the given options; Err carries the status and the message.
pub fn try_sampler(
    opts: &sys::kp_sampler_options_t,
) -> Result<*mut sys::kp_sampler_t, (c_int, String)> {
    let mut s: *mut sys::kp_sampler_t = ptr::null_mut();
    let rc = unsafe { sys::kp_sampler_new(&mut s, opts) };
    if rc == sys::KP_OK {
        assert!(!s.is_null(), "kp_sampler_new returned KP_OK but no sampler");
        Ok(s)
    } else {
        assert!(s.is_null(), "kp_sampler_new failed but left *out non-NULL");
        Err((rc, last_message()))
    }
}

/// A perf_event sampler; panics with the library's message if it cannot be made.
pub fn perf_event_sampler() -> *mut sys::kp_sampler_t {
    match try_sampler(&options(sys::KP_BACKEND_PERF_EVENT)) {
        Ok(s) => s,
        Err((rc, msg)) => panic!(
            "kp_sampler_new(perf_event) failed with {}: {}",
            crate::check::status_name(rc),
            msg
        ),
    }
}

/// kp_thread_new for `events` on the calling thread; Err carries the status and message.
pub fn try_thread(
    s: *mut sys::kp_sampler_t,
    events: &[&str],
) -> Result<*mut sys::kp_thread_t, (c_int, String)> {
    let owned: Vec<CString> = events.iter().map(|e| CString::new(*e).unwrap()).collect();
    let names: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
    let mut t: *mut sys::kp_thread_t = ptr::null_mut();
    let rc = unsafe { sys::kp_thread_new(&mut t, s, names.as_ptr(), names.len()) };
    if rc == sys::KP_OK {
        assert!(!t.is_null(), "kp_thread_new returned KP_OK but no handle");
        Ok(t)
    } else {
        assert!(t.is_null(), "kp_thread_new failed but left *out non-NULL");
        Err((rc, last_message()))
    }
}

/// kp_thread_new that must succeed.
pub fn thread(s: *mut sys::kp_sampler_t, events: &[&str]) -> *mut sys::kp_thread_t {
    match try_thread(s, events) {
        Ok(t) => t,
        Err((rc, msg)) => panic!(
            "kp_thread_new({:?}) failed with {}: {}",
            events,
            crate::check::status_name(rc),
            msg
        ),
    }
}

/// Running totals of every event of `t`; panics on failure.
pub fn sample(t: *mut sys::kp_thread_t) -> Vec<u64> {
    let n = unsafe { sys::kp_thread_event_count(t) } as usize;
    let mut values = vec![0u64; n];
    expect_ok(
        unsafe { sys::kp_thread_sample(t, values.as_mut_ptr(), n) },
        "kp_thread_sample",
    );
    values
}

/// A raw handle moved to another std::thread. The C API allows kp_thread_free and the
/// accessors from any thread, and must refuse start/stop/sample there.
pub struct SendPtr<T>(pub *mut T);
unsafe impl<T> Send for SendPtr<T> {}

/// kp_thread_new for software events. Returns None, after recording a skip for `test`,
/// when the OS forbids counting (KP_EPERM: perf_event_paranoid); any other failure is a
/// test failure.
pub fn software_thread(
    s: *mut sys::kp_sampler_t,
    events: &[&str],
    test: &str,
) -> Option<*mut sys::kp_thread_t> {
    match try_thread(s, events) {
        Ok(t) => Some(t),
        Err((rc, msg)) if rc == sys::KP_EPERM => {
            crate::skip::skip(
                test,
                &format!("the OS does not allow counting here: {}", msg),
            );
            None
        }
        Err((rc, msg)) => panic!(
            "kp_thread_new({:?}) failed with {}: {}",
            events,
            crate::check::status_name(rc),
            msg
        ),
    }
}

impl<T> SendPtr<T> {
    /// Use this in closures: a method call moves the whole wrapper (and its Send) into
    /// the closure, where `.0` would capture only the raw pointer field.
    pub fn get(&self) -> *mut T {
        self.0
    }
}
