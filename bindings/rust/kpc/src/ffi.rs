//! The raw C API (include/kpc/*.h), for calling libkpc directly; everything here is
//! `unsafe` to use and follows the C rules (kpc/thread.h, kpc/errors.h).
//!
//! Declared by hand rather than generated: users need no libclang or bindgen, and the ABI
//! only grows (docs/api-stability.md). tests/rust checks the headers themselves with
//! bindgen; `options_layout` and `process_options_layout` below pin the structs this crate
//! mirrors.
#![allow(non_camel_case_types, missing_docs)]

use std::os::raw::{c_char, c_int, c_uint};

/// Opaque `kp_sampler_t`.
#[repr(C)]
pub struct kp_sampler_t {
    _private: [u8; 0],
}

/// Opaque `kp_thread_t`.
#[repr(C)]
pub struct kp_thread_t {
    _private: [u8; 0],
}

/// Opaque `kp_process_t`.
#[repr(C)]
pub struct kp_process_t {
    _private: [u8; 0],
}

/// `kp_process_scope_t` values: what an event of a `kp_process_t` covers.
pub const KP_PROCESS_SCOPE_TREE: c_int = 0;
pub const KP_PROCESS_SCOPE_PROCESS: c_int = 1;
pub const KP_PROCESS_SCOPE_SYSTEM: c_int = 2;

/// `kp_process_options_t`, version 1. Always filled by `kp_process_options_init` first.
#[repr(C)]
pub struct kp_process_options_t {
    pub version: c_uint,
    pub flags: c_uint,
    pub groups: *const i32,
}

pub const KP_PROCESS_OPTIONS_VERSION: c_uint = 1;
/// `kp_process_options_t::flags`: an event that cannot be counted is reported per event.
pub const KP_PROCESS_PARTIAL: c_uint = 0x1;
/// `kp_process_attach_ex` pid: every CPU (system-wide).
pub const KP_PROCESS_SYSTEM_WIDE: i32 = -1;

/// `KP_MAX_EVENTS`: most events one thread or process handle counts.
pub const KP_MAX_EVENTS: usize = 32;
/// `KP_EVENT_NAME_MAX`: longest event name accepted, in bytes.
pub const KP_EVENT_NAME_MAX: usize = 256;

/// Opaque, borrowed `kp_event_t`.
#[repr(C)]
pub struct kp_event_t {
    _private: [u8; 0],
}

/// `kp_sampler_options_t`, version 1. Always filled by `kp_sampler_options_init` first.
#[repr(C)]
pub struct kp_sampler_options_t {
    pub version: c_uint,
    pub backend: c_int,
    pub kperf_path: *const c_char,
    pub kperfdata_path: *const c_char,
}

pub const KP_SAMPLER_OPTIONS_VERSION: c_uint = 1;

extern "C" {
    // errors.h
    pub fn kp_strerror(status: c_int) -> *const c_char;
    pub fn kp_error_last_message() -> *const c_char;
    pub fn kp_error_last_os_code() -> c_int;

    // version.h
    pub fn kp_version_string() -> *const c_char;

    // sampler.h
    pub fn kp_sampler_options_init(opts: *mut kp_sampler_options_t, version: c_uint) -> c_int;
    pub fn kp_sampler_new(out: *mut *mut kp_sampler_t, opts: *const kp_sampler_options_t) -> c_int;
    pub fn kp_sampler_free(s: *mut kp_sampler_t);
    pub fn kp_sampler_release(s: *mut kp_sampler_t) -> c_int;
    pub fn kp_sampler_backend(s: *const kp_sampler_t) -> c_int;
    pub fn kp_sampler_backend_name(s: *const kp_sampler_t) -> *const c_char;
    pub fn kp_sampler_backend_reason(s: *const kp_sampler_t) -> *const c_char;
    pub fn kp_sampler_cpu_id(s: *const kp_sampler_t) -> *const c_char;
    pub fn kp_sampler_cpu_name(s: *const kp_sampler_t) -> *const c_char;
    pub fn kp_sampler_pmu_name(s: *const kp_sampler_t) -> *const c_char;
    pub fn kp_sampler_counter_count(
        fixed_out: *mut u32,
        configurable_out: *mut u32,
        s: *const kp_sampler_t,
    ) -> c_int;
    pub fn kp_sampler_access(s: *const kp_sampler_t) -> c_int;
    pub fn kp_sampler_event_count(s: *const kp_sampler_t) -> usize;
    pub fn kp_sampler_event_at(s: *const kp_sampler_t, index: usize) -> *const kp_event_t;
    pub fn kp_sampler_event_find(
        out: *mut *const kp_event_t,
        s: *mut kp_sampler_t,
        name: *const c_char,
    ) -> c_int;

    // thread.h
    pub fn kp_thread_new(
        out: *mut *mut kp_thread_t,
        s: *mut kp_sampler_t,
        events: *const *const c_char,
        count: usize,
    ) -> c_int;
    pub fn kp_thread_free(t: *mut kp_thread_t);
    pub fn kp_thread_start(t: *mut kp_thread_t) -> c_int;
    pub fn kp_thread_stop(t: *mut kp_thread_t) -> c_int;
    pub fn kp_thread_sample(t: *mut kp_thread_t, values: *mut u64, count: usize) -> c_int;
    pub fn kp_thread_sample_full(
        t: *mut kp_thread_t,
        values: *mut u64,
        complete: *mut u8,
        count: usize,
        time_enabled_ns: *mut u64,
        time_running_ns: *mut u64,
    ) -> c_int;
    pub fn kp_thread_calibrate(
        t: *mut kp_thread_t,
        offsets: *mut u64,
        count: usize,
        rounds: c_uint,
    ) -> c_int;
    pub fn kp_thread_is_running(t: *const kp_thread_t) -> c_int;
    pub fn kp_thread_event_count(t: *const kp_thread_t) -> usize;
    pub fn kp_thread_event_at(t: *const kp_thread_t, index: usize) -> *const kp_event_t;

    // process.h
    pub fn kp_process_spawn(
        out: *mut *mut kp_process_t,
        s: *mut kp_sampler_t,
        events: *const *const c_char,
        count: usize,
        argv: *const *const c_char,
    ) -> c_int;
    pub fn kp_process_attach(
        out: *mut *mut kp_process_t,
        s: *mut kp_sampler_t,
        events: *const *const c_char,
        count: usize,
        pid: i32,
    ) -> c_int;
    pub fn kp_process_options_init(opts: *mut kp_process_options_t, version: c_uint) -> c_int;
    pub fn kp_process_spawn_ex(
        out: *mut *mut kp_process_t,
        s: *mut kp_sampler_t,
        events: *const *const c_char,
        count: usize,
        argv: *const *const c_char,
        options: *const kp_process_options_t,
    ) -> c_int;
    pub fn kp_process_event_status(
        p: *const kp_process_t,
        index: usize,
        status: *mut c_int,
        reason: *mut *const c_char,
    ) -> c_int;
    pub fn kp_process_attach_ex(
        out: *mut *mut kp_process_t,
        s: *mut kp_sampler_t,
        events: *const *const c_char,
        count: usize,
        pid: i32,
        options: *const kp_process_options_t,
    ) -> c_int;
    pub fn kp_process_thread_count(p: *const kp_process_t) -> usize;
    pub fn kp_process_read_thread(
        p: *mut kp_process_t,
        index: usize,
        tid: *mut i32,
        values: *mut u64,
        complete: *mut u8,
        count: usize,
    ) -> c_int;
    pub fn kp_process_free(p: *mut kp_process_t);
    pub fn kp_process_start(p: *mut kp_process_t) -> c_int;
    pub fn kp_process_stop(p: *mut kp_process_t) -> c_int;
    pub fn kp_process_is_counting(p: *const kp_process_t) -> c_int;
    pub fn kp_process_read(p: *mut kp_process_t, values: *mut u64, count: usize) -> c_int;
    pub fn kp_process_read_full(
        p: *mut kp_process_t,
        values: *mut u64,
        complete: *mut u8,
        count: usize,
        time_enabled_ns: *mut u64,
        time_running_ns: *mut u64,
    ) -> c_int;
    pub fn kp_process_wait(
        p: *mut kp_process_t,
        exit_code: *mut c_int,
        term_signal: *mut c_int,
    ) -> c_int;
    pub fn kp_process_pid(p: *const kp_process_t) -> i32;
    pub fn kp_process_event_count(p: *const kp_process_t) -> usize;
    pub fn kp_process_event_at(p: *const kp_process_t, index: usize) -> *const kp_event_t;
    pub fn kp_process_event_scope(p: *const kp_process_t, index: usize) -> c_int;

    // event.h
    pub fn kp_event_name(e: *const kp_event_t) -> *const c_char;
    pub fn kp_event_native_name(e: *const kp_event_t) -> *const c_char;
    pub fn kp_event_description(e: *const kp_event_t) -> *const c_char;
    pub fn kp_event_kind(e: *const kp_event_t) -> c_int;
    pub fn kp_event_is_generic(e: *const kp_event_t) -> c_int;
    pub fn kp_event_is_available(e: *const kp_event_t) -> c_int;
    pub fn kp_event_unavailable_reason(e: *const kp_event_t) -> *const c_char;
    pub fn kp_event_alias(e: *const kp_event_t) -> *const c_char;
    pub fn kp_event_errata(e: *const kp_event_t) -> *const c_char;
    pub fn kp_event_fallback(e: *const kp_event_t) -> *const c_char;
    pub fn kp_event_counters_mask(e: *const kp_event_t) -> u32;
    pub fn kp_event_selector(e: *const kp_event_t) -> u64;
    pub fn kp_event_fixed_counter(e: *const kp_event_t) -> c_int;
    pub fn kp_event_counts_kernel(e: *const kp_event_t) -> c_int;
    pub fn kp_event_unit(e: *const kp_event_t) -> c_int;
}

/// A borrowed C string as an owned `String` (lossy: CPU names come from /proc/cpuinfo);
/// `None` for NULL.
pub(crate) fn owned(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: libkpc returns NUL-terminated strings that stay valid until the next
        // call on the same object or thread; this copies at once.
        Some(
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_string_lossy()
                .into_owned(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, size_of};

    /// The released layout of kp_sampler_options_t (version 1): unsigned, enum, two pointers.
    #[test]
    fn options_layout() {
        let ptr = size_of::<*const c_char>();
        assert_eq!(size_of::<kp_sampler_options_t>(), 8 + 2 * ptr);
        assert_eq!(
            align_of::<kp_sampler_options_t>(),
            align_of::<*const c_char>()
        );
        let o = kp_sampler_options_t {
            version: 0,
            backend: 0,
            kperf_path: std::ptr::null(),
            kperfdata_path: std::ptr::null(),
        };
        let base = &o as *const _ as usize;
        assert_eq!(&o.backend as *const _ as usize - base, 4);
        assert_eq!(&o.kperf_path as *const _ as usize - base, 8);
        assert_eq!(&o.kperfdata_path as *const _ as usize - base, 8 + ptr);
    }

    /// kp_process_options_t (version 1): two unsigned ints, then the groups pointer.
    #[test]
    fn process_options_layout() {
        let ptr = size_of::<*const i32>();
        assert_eq!(size_of::<kp_process_options_t>(), 8 + ptr);
        assert_eq!(align_of::<kp_process_options_t>(), align_of::<*const i32>());
        let o = kp_process_options_t {
            version: 0,
            flags: 0,
            groups: std::ptr::null(),
        };
        let base = &o as *const _ as usize;
        assert_eq!(&o.flags as *const _ as usize - base, 4);
        assert_eq!(&o.groups as *const _ as usize - base, 8);
    }
}
