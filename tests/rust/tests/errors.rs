//! Every status code this machine can produce through the perf_event backend, each with the
//! thread's last error agreeing and a message that names the cause; kp_strerror for every
//! code in the header. (Codes that need the kperf simulator are covered in kperf_sim.rs.)
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::ptr;

use kpc_abi_tests::check::{c_string, expect_ok, expect_status, last_message, status_name};
use kpc_abi_tests::enums::ENUM_CONSTANTS;
use kpc_abi_tests::handles::{
    options, perf_event_sampler, software_thread, try_sampler, try_thread,
};
use kpc_abi_tests::memory::spin;
use kpc_abi_tests::skip::skip;
use kpc_abi_tests::sys;

fn status_codes() -> Vec<(&'static str, c_int)> {
    ENUM_CONSTANTS
        .iter()
        .filter(|(ty, _, _)| *ty == "kp_status")
        .map(|(_, name, value)| (*name, *value as c_int))
        .collect()
}

#[test]
fn strerror_describes_every_status_code() {
    let codes = status_codes();
    assert!(
        codes.len() >= 18,
        "the kp_status table from the header looks truncated: {:?}",
        codes
    );
    let mut seen: Vec<(String, &str)> = Vec::new();
    for (name, code) in &codes {
        let text = c_string(unsafe { sys::kp_strerror(*code) })
            .unwrap_or_else(|| panic!("kp_strerror({}) returned NULL", name));
        assert!(!text.is_empty(), "kp_strerror({}) is empty", name);
        assert_ne!(
            text, "unknown status",
            "kp_strerror has no text for {}",
            name
        );
        if let Some((_, other)) = seen.iter().find(|(t, _)| *t == text) {
            panic!(
                "kp_strerror gives {} and {} the same text {:?}",
                name, other, text
            );
        }
        seen.push((text, name));
    }
    let lowest = codes.iter().map(|(_, c)| *c).min().unwrap();
    for not_a_code in [1, 42, lowest - 1, c_int::MIN, c_int::MAX] {
        let text =
            c_string(unsafe { sys::kp_strerror(not_a_code) }).expect("kp_strerror returned NULL");
        assert_eq!(text, "unknown status", "kp_strerror({})", not_a_code);
    }
}

#[test]
fn strerror_leaves_the_last_error_alone() {
    let rc = unsafe { sys::kp_sampler_new(ptr::null_mut(), ptr::null()) };
    let message = expect_status(rc, sys::KP_EINVAL, "kp_sampler_new(NULL, NULL)");
    for (_, code) in status_codes() {
        unsafe { sys::kp_strerror(code) };
    }
    assert_eq!(unsafe { sys::kp_error_last_status() }, sys::KP_EINVAL);
    assert_eq!(last_message(), message);
    unsafe { sys::kp_error_clear() };
    assert_eq!(
        unsafe { sys::kp_error_last_status() },
        sys::KP_OK,
        "kp_error_clear"
    );
    assert_eq!(last_message(), "", "kp_error_clear leaves an empty message");
    assert_eq!(
        unsafe { sys::kp_error_last_os_code() },
        0,
        "kp_error_clear resets the OS code"
    );
}

#[test]
fn null_arguments_are_einval() {
    let s = perf_event_sampler();
    let name = CString::new("task-clock").unwrap();
    let names: [*const c_char; 1] = [name.as_ptr()];
    let mut t: *mut sys::kp_thread_t = ptr::null_mut();
    let mut e: *const sys::kp_event_t = ptr::null();
    let mut values = [0u64; 4];
    unsafe {
        let message = expect_status(
            sys::kp_sampler_new(ptr::null_mut(), ptr::null()),
            sys::KP_EINVAL,
            "kp_sampler_new(out=NULL)",
        );
        assert!(
            message.contains("out"),
            "the message should name the NULL argument: {:?}",
            message
        );
        expect_status(
            sys::kp_sampler_options_init(ptr::null_mut(), 1),
            sys::KP_EINVAL,
            "kp_sampler_options_init(NULL)",
        );
        expect_status(
            sys::kp_sampler_release(ptr::null_mut()),
            sys::KP_EINVAL,
            "kp_sampler_release(NULL)",
        );
        expect_status(
            sys::kp_sampler_access(ptr::null()),
            sys::KP_EINVAL,
            "kp_sampler_access(NULL)",
        );
        expect_status(
            sys::kp_sampler_counter_count(ptr::null_mut(), ptr::null_mut(), ptr::null()),
            sys::KP_EINVAL,
            "kp_sampler_counter_count(s=NULL)",
        );
        expect_status(
            sys::kp_sampler_event_find(ptr::null_mut(), s, name.as_ptr()),
            sys::KP_EINVAL,
            "kp_sampler_event_find(out=NULL)",
        );
        expect_status(
            sys::kp_sampler_event_find(&mut e, ptr::null_mut(), name.as_ptr()),
            sys::KP_EINVAL,
            "kp_sampler_event_find(s=NULL)",
        );
        expect_status(
            sys::kp_sampler_event_find(&mut e, s, ptr::null()),
            sys::KP_EINVAL,
            "kp_sampler_event_find(name=NULL)",
        );
        assert!(
            e.is_null(),
            "a failed kp_sampler_event_find leaves *out NULL"
        );
        expect_status(
            sys::kp_thread_new(ptr::null_mut(), s, names.as_ptr(), 1),
            sys::KP_EINVAL,
            "kp_thread_new(out=NULL)",
        );
        expect_status(
            sys::kp_thread_new(&mut t, ptr::null_mut(), names.as_ptr(), 1),
            sys::KP_EINVAL,
            "kp_thread_new(s=NULL)",
        );
        expect_status(
            sys::kp_thread_new(&mut t, s, ptr::null(), 1),
            sys::KP_EINVAL,
            "kp_thread_new(events=NULL)",
        );
        let null_name: [*const c_char; 1] = [ptr::null()];
        expect_status(
            sys::kp_thread_new(&mut t, s, null_name.as_ptr(), 1),
            sys::KP_EINVAL,
            "kp_thread_new(events[0]=NULL)",
        );
        assert!(t.is_null(), "a failed kp_thread_new leaves *out NULL");
        expect_status(
            sys::kp_thread_start(ptr::null_mut()),
            sys::KP_EINVAL,
            "kp_thread_start(NULL)",
        );
        expect_status(
            sys::kp_thread_stop(ptr::null_mut()),
            sys::KP_EINVAL,
            "kp_thread_stop(NULL)",
        );
        expect_status(
            sys::kp_thread_sample(ptr::null_mut(), values.as_mut_ptr(), 4),
            sys::KP_EINVAL,
            "kp_thread_sample(NULL)",
        );
        expect_status(
            sys::kp_thread_sample_full(
                ptr::null_mut(),
                values.as_mut_ptr(),
                ptr::null_mut(),
                4,
                ptr::null_mut(),
                ptr::null_mut(),
            ),
            sys::KP_EINVAL,
            "kp_thread_sample_full(NULL)",
        );
        sys::kp_sampler_free(s);
    }
}

#[test]
fn bad_event_counts_and_duplicates_are_einval() {
    let s = perf_event_sampler();
    let names: Vec<CString> = (0..33)
        .map(|_| CString::new("task-clock").unwrap())
        .collect();
    let ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
    let mut t: *mut sys::kp_thread_t = ptr::null_mut();
    unsafe {
        let m = expect_status(
            sys::kp_thread_new(&mut t, s, ptrs.as_ptr(), 0),
            sys::KP_EINVAL,
            "kp_thread_new(count=0)",
        );
        assert!(m.contains("count"), "message should name count: {:?}", m);
        expect_status(
            sys::kp_thread_new(&mut t, s, ptrs.as_ptr(), 33),
            sys::KP_EINVAL,
            "kp_thread_new(count=33)",
        );
        let m = expect_status(
            sys::kp_thread_new(&mut t, s, ptrs.as_ptr(), 2),
            sys::KP_EINVAL,
            "kp_thread_new(duplicate)",
        );
        assert!(
            m.contains("task-clock"),
            "message should name the duplicate: {:?}",
            m
        );
        sys::kp_sampler_free(s);
    }
}

#[test]
fn bad_options_are_einval() {
    let mut opts = options(sys::KP_BACKEND_PERF_EVENT);
    for version in [0u32, sys::KP_SAMPLER_OPTIONS_VERSION + 1, 99] {
        let rc = unsafe { sys::kp_sampler_options_init(&mut opts, version) };
        let m = expect_status(
            rc,
            sys::KP_EINVAL,
            &format!("kp_sampler_options_init(version {})", version),
        );
        assert!(
            m.contains(&version.to_string()),
            "message should quote the version: {:?}",
            m
        );
    }
    // A struct whose version field was never initialised.
    let mut opts = options(sys::KP_BACKEND_PERF_EVENT);
    opts.version = 99;
    let (rc, m) = try_sampler(&opts).expect_err("kp_sampler_new accepted options version 99");
    assert_eq!(rc, sys::KP_EINVAL, "{}: {}", status_name(rc), m);
    assert!(
        m.contains("kp_sampler_options_init"),
        "message should point at the fix: {:?}",
        m
    );
    let mut opts = options(sys::KP_BACKEND_PERF_EVENT);
    opts.backend = 77;
    let (rc, m) = try_sampler(&opts).expect_err("kp_sampler_new accepted backend 77");
    assert_eq!(rc, sys::KP_EINVAL, "{}: {}", status_name(rc), m);
    assert!(
        m.contains("77"),
        "message should quote the bad backend: {:?}",
        m
    );
}

#[test]
fn unknown_events_are_eunknown_event() {
    let s = perf_event_sampler();
    let bogus = CString::new("no-such-event-xyz").unwrap();
    let mut e: *const sys::kp_event_t = ptr::null();
    let rc = unsafe { sys::kp_sampler_event_find(&mut e, s, bogus.as_ptr()) };
    let m = expect_status(
        rc,
        sys::KP_EUNKNOWN_EVENT,
        "kp_sampler_event_find(no-such-event-xyz)",
    );
    assert!(
        m.contains("no-such-event-xyz"),
        "message should name the event: {:?}",
        m
    );
    assert!(e.is_null());

    let (rc, m) =
        try_thread(s, &["task-clok"]).expect_err("kp_thread_new accepted a misspelt event");
    assert_eq!(rc, sys::KP_EUNKNOWN_EVENT, "{}: {}", status_name(rc), m);
    assert!(
        m.contains("task-clock"),
        "message should suggest the close name task-clock: {:?}",
        m
    );
    unsafe { sys::kp_sampler_free(s) };
}

/// No PMU (this VM): hardware events are found but unavailable, and access says
/// unsupported. With a PMU the same calls must succeed instead; both ways are asserted.
#[test]
fn hardware_events_follow_the_pmu() {
    let s = perf_event_sampler();
    let access = unsafe { sys::kp_sampler_access(s) };
    let cycles = CString::new("cycles").unwrap();
    let mut e: *const sys::kp_event_t = ptr::null();
    expect_ok(
        unsafe { sys::kp_sampler_event_find(&mut e, s, cycles.as_ptr()) },
        "kp_sampler_event_find(cycles)",
    );
    let available = unsafe { sys::kp_event_is_available(e) };
    let reason = c_string(unsafe { sys::kp_event_unavailable_reason(e) }).unwrap();
    if access == sys::KP_EUNSUPPORTED {
        let m = last_message();
        assert_eq!(unsafe { sys::kp_error_last_status() }, sys::KP_EUNSUPPORTED);
        assert!(!m.is_empty(), "kp_sampler_access failed without a message");
        let pmu = c_string(unsafe { sys::kp_sampler_pmu_name(s) }).unwrap();
        assert_eq!(
            pmu, "none",
            "no PMU, so kp_sampler_pmu_name should say none"
        );
        assert_eq!(
            available, 0,
            "access is unsupported yet cycles is available"
        );
        assert!(!reason.is_empty(), "an unavailable event must say why");
        let (rc, m) =
            try_thread(s, &["cycles"]).expect_err("kp_thread_new(cycles) worked without a PMU");
        assert_eq!(rc, sys::KP_EUNAVAILABLE, "{}: {}", status_name(rc), m);
        assert!(
            m.contains("cycles"),
            "message should name the event: {:?}",
            m
        );
        // A software event next to it does not rescue the set.
        let (rc, _) = try_thread(s, &["task-clock", "instructions"])
            .expect_err("an unavailable event was accepted");
        assert_eq!(rc, sys::KP_EUNAVAILABLE);
    } else if access == sys::KP_OK {
        assert_eq!(
            available, 1,
            "access is OK yet cycles is unavailable: {}",
            reason
        );
        assert_eq!(reason, "");
        let t = match software_thread(s, &["cycles"], "hardware_events_follow_the_pmu") {
            Some(t) => t,
            None => return,
        };
        unsafe {
            expect_ok(sys::kp_thread_start(t), "kp_thread_start(cycles)");
            spin(1_000_000);
            let mut v = [0u64; 1];
            expect_ok(
                sys::kp_thread_sample(t, v.as_mut_ptr(), 1),
                "kp_thread_sample(cycles)",
            );
            assert!(v[0] > 0, "a million iterations took zero cycles");
            sys::kp_thread_free(t);
        }
    } else {
        skip(
            "hardware_events_follow_the_pmu",
            &format!(
                "kp_sampler_access: {}: {}",
                status_name(access),
                last_message()
            ),
        );
    }
    unsafe { sys::kp_sampler_free(s) };
}

#[test]
fn sampling_before_start_is_estate() {
    let s = perf_event_sampler();
    let t = match software_thread(s, &["task-clock"], "sampling_before_start_is_estate") {
        Some(t) => t,
        None => return,
    };
    let mut v = [0u64; 1];
    unsafe {
        let m = expect_status(
            sys::kp_thread_sample(t, v.as_mut_ptr(), 1),
            sys::KP_ESTATE,
            "kp_thread_sample before start",
        );
        assert!(
            m.contains("kp_thread_start"),
            "message should say to start first: {:?}",
            m
        );
        // Stopping a handle that never started is a harmless no-op.
        expect_ok(sys::kp_thread_stop(t), "kp_thread_stop before start");
        expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        expect_ok(
            sys::kp_thread_sample(t, v.as_mut_ptr(), 1),
            "kp_thread_sample after start",
        );
        sys::kp_thread_free(t);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn a_released_sampler_is_estate() {
    let s = perf_event_sampler();
    let t = match software_thread(s, &["task-clock"], "a_released_sampler_is_estate") {
        Some(t) => t,
        None => return,
    };
    let mut v = [0u64; 1];
    unsafe {
        expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        expect_ok(
            sys::kp_thread_sample(t, v.as_mut_ptr(), 1),
            "kp_thread_sample",
        );
        expect_ok(sys::kp_sampler_release(s), "kp_sampler_release");
        expect_ok(
            sys::kp_sampler_release(s),
            "kp_sampler_release again (idempotent)",
        );
        let m = expect_status(
            sys::kp_thread_sample(t, v.as_mut_ptr(), 1),
            sys::KP_ESTATE,
            "kp_thread_sample after release",
        );
        assert!(
            m.contains("release"),
            "message should say the sampler was released: {:?}",
            m
        );
        expect_status(
            sys::kp_thread_start(t),
            sys::KP_ESTATE,
            "kp_thread_start after release",
        );
        expect_status(
            sys::kp_sampler_access(s),
            sys::KP_ESTATE,
            "kp_sampler_access after release",
        );
        let (rc, _) = try_thread(s, &["page-faults"]).expect_err("kp_thread_new after release");
        assert_eq!(
            rc,
            sys::KP_ESTATE,
            "kp_thread_new after release: {}",
            status_name(rc)
        );
        sys::kp_thread_free(t);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn small_buffers_are_ebufsize() {
    let s = perf_event_sampler();
    let t = match software_thread(
        s,
        &["task-clock", "page-faults"],
        "small_buffers_are_ebufsize",
    ) {
        Some(t) => t,
        None => return,
    };
    let mut v = [0u64; 2];
    let mut complete = [0u8; 2];
    unsafe {
        expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        let m = expect_status(
            sys::kp_thread_sample(t, v.as_mut_ptr(), 1),
            sys::KP_EBUFSIZE,
            "kp_thread_sample(count=1 of 2)",
        );
        assert!(
            m.contains("kp_thread_event_count"),
            "message should point at kp_thread_event_count: {:?}",
            m
        );
        expect_status(
            sys::kp_thread_sample(t, v.as_mut_ptr(), 0),
            sys::KP_EBUFSIZE,
            "kp_thread_sample(count=0)",
        );
        expect_status(
            sys::kp_thread_sample_full(
                t,
                v.as_mut_ptr(),
                complete.as_mut_ptr(),
                1,
                ptr::null_mut(),
                ptr::null_mut(),
            ),
            sys::KP_EBUFSIZE,
            "kp_thread_sample_full(count=1 of 2)",
        );
        // A larger buffer is fine; the extra elements are not the library's business.
        let mut big = [0u64; 8];
        expect_ok(
            sys::kp_thread_sample(t, big.as_mut_ptr(), 8),
            "kp_thread_sample(count=8)",
        );
        sys::kp_thread_free(t);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn errors_are_thread_local() {
    let rc = unsafe { sys::kp_sampler_new(ptr::null_mut(), ptr::null()) };
    let here = expect_status(rc, sys::KP_EINVAL, "kp_sampler_new(NULL, NULL)");
    let there = std::thread::spawn(|| {
        let before = (unsafe { sys::kp_error_last_status() }, last_message());
        let s = perf_event_sampler();
        let bogus = CString::new("bogus-event").unwrap();
        let mut e: *const sys::kp_event_t = ptr::null();
        let rc = unsafe { sys::kp_sampler_event_find(&mut e, s, bogus.as_ptr()) };
        let m = expect_status(
            rc,
            sys::KP_EUNKNOWN_EVENT,
            "kp_sampler_event_find(bogus-event)",
        );
        unsafe { sys::kp_sampler_free(s) };
        (before, m)
    })
    .join()
    .unwrap();
    assert_eq!(
        there.0,
        (sys::KP_OK, String::new()),
        "a new thread must start with no last error"
    );
    assert!(there.1.contains("bogus-event"));
    assert_eq!(
        unsafe { sys::kp_error_last_status() },
        sys::KP_EINVAL,
        "another thread's failure leaked here"
    );
    assert_eq!(last_message(), here);
}
