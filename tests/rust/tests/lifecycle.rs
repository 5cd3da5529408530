//! Handle lifecycles as a garbage-collected binding drives them: constructors, NULL-safe
//! destructors, destruction in any order (a kp_thread_t keeps its sampler's session
//! alive), start/stop semantics, and the event database after release.
use std::ffi::CString;
use std::ptr;

use kpc_abi_tests::check::{c_string, expect_ok, expect_status};
use kpc_abi_tests::handles::{perf_event_sampler, sample, software_thread};
use kpc_abi_tests::memory::touch_fresh_pages;
use kpc_abi_tests::sys;

/// Enough pages that the page-fault count clearly shows them.
const PAGES: usize = 512;

#[test]
fn destructors_accept_null() {
    unsafe {
        sys::kp_sampler_free(ptr::null_mut());
        sys::kp_thread_free(ptr::null_mut());
    }
}

#[test]
fn sampler_describes_backend_cpu_and_events() {
    let s = perf_event_sampler();
    unsafe {
        assert_eq!(
            sys::kp_sampler_backend(s),
            sys::KP_BACKEND_PERF_EVENT as i32
        );
        assert_eq!(
            c_string(sys::kp_sampler_backend_name(s)).as_deref(),
            Some("perf_event")
        );
        for (what, p) in [
            ("cpu_id", sys::kp_sampler_cpu_id(s)),
            ("cpu_name", sys::kp_sampler_cpu_name(s)),
            ("pmu_name", sys::kp_sampler_pmu_name(s)),
        ] {
            let v = c_string(p).unwrap_or_else(|| panic!("kp_sampler_{} returned NULL", what));
            assert!(!v.is_empty(), "kp_sampler_{} is empty", what);
        }
        let (mut fixed, mut configurable) = (u32::MAX, u32::MAX);
        expect_ok(
            sys::kp_sampler_counter_count(&mut fixed, &mut configurable, s),
            "kp_sampler_counter_count",
        );
        assert!(
            fixed < 64 && configurable < 64,
            "implausible counter counts {} / {}",
            fixed,
            configurable
        );
        expect_ok(
            sys::kp_sampler_counter_count(ptr::null_mut(), ptr::null_mut(), s),
            "kp_sampler_counter_count(NULL outs)",
        );

        let n = sys::kp_sampler_event_count(s);
        assert!(n > 0, "empty event database");
        assert!(
            sys::kp_sampler_event_at(s, n).is_null(),
            "kp_sampler_event_at(count) must be NULL"
        );
        let mut saw_task_clock: *const sys::kp_event_t = ptr::null();
        for i in 0..n {
            let e = sys::kp_sampler_event_at(s, i);
            assert!(!e.is_null(), "kp_sampler_event_at({}) is NULL", i);
            let name = c_string(sys::kp_event_name(e)).expect("event without a name");
            assert!(!name.is_empty());
            assert!(c_string(sys::kp_event_native_name(e)).is_some());
            assert!(c_string(sys::kp_event_description(e)).is_some());
            let kind = sys::kp_event_kind(e);
            assert!(
                kind == sys::KP_EVENT_FIXED as i32
                    || kind == sys::KP_EVENT_CONFIGURABLE as i32
                    || kind == sys::KP_EVENT_SOFTWARE as i32,
                "{} has kind {}",
                name,
                kind
            );
            let available = sys::kp_event_is_available(e);
            let reason = c_string(sys::kp_event_unavailable_reason(e)).unwrap();
            assert_eq!(
                available == 1,
                reason.is_empty(),
                "{}: available={} but reason {:?}",
                name,
                available,
                reason
            );
            if name == "task-clock" {
                saw_task_clock = e;
                assert_eq!(sys::kp_event_is_generic(e), 1);
                assert_eq!(kind, sys::KP_EVENT_SOFTWARE as i32);
                assert_eq!(sys::kp_event_fixed_counter(e), -1);
                // The kernel counts software events, kernel mode included.
                assert_eq!(sys::kp_event_counts_kernel(e), 1);
            }
        }
        assert!(
            !saw_task_clock.is_null(),
            "task-clock is not in the database"
        );
        let name = CString::new("task-clock").unwrap();
        let mut e: *const sys::kp_event_t = ptr::null();
        expect_ok(
            sys::kp_sampler_event_find(&mut e, s, name.as_ptr()),
            "kp_sampler_event_find(task-clock)",
        );
        assert_eq!(
            e, saw_task_clock,
            "lookup and iteration should give the same borrowed event"
        );
        sys::kp_sampler_free(s);
    }
}

#[test]
fn event_accessors_accept_null() {
    let e: *const sys::kp_event_t = ptr::null();
    unsafe {
        assert!(sys::kp_event_name(e).is_null());
        assert!(sys::kp_event_native_name(e).is_null());
        assert!(sys::kp_event_description(e).is_null());
        assert!(sys::kp_event_unavailable_reason(e).is_null());
        assert!(sys::kp_event_alias(e).is_null());
        assert!(sys::kp_event_errata(e).is_null());
        assert!(sys::kp_event_fallback(e).is_null());
        assert_eq!(sys::kp_event_kind(e), -1);
        assert_eq!(sys::kp_event_is_generic(e), 0);
        assert_eq!(sys::kp_event_is_available(e), 0);
        assert_eq!(sys::kp_event_counters_mask(e), 0);
        assert_eq!(sys::kp_event_selector(e), 0);
        assert_eq!(sys::kp_event_fixed_counter(e), -1);
        assert_eq!(sys::kp_event_counts_kernel(e), -1);
        let mut off = [0u64; 1];
        assert_eq!(
            sys::kp_thread_calibrate(ptr::null_mut(), off.as_mut_ptr(), 1, 0),
            sys::KP_EINVAL
        );
        assert_eq!(sys::kp_sampler_backend(ptr::null()), -1);
        assert!(sys::kp_sampler_backend_name(ptr::null()).is_null());
        assert!(sys::kp_sampler_cpu_id(ptr::null()).is_null());
        assert_eq!(sys::kp_sampler_event_count(ptr::null()), 0);
        assert!(sys::kp_sampler_event_at(ptr::null(), 0).is_null());
        assert_eq!(sys::kp_thread_is_running(ptr::null()), 0);
        assert_eq!(sys::kp_thread_event_count(ptr::null()), 0);
        assert!(sys::kp_thread_event_at(ptr::null(), 0).is_null());
    }
}

#[test]
fn thread_outlives_its_sampler() {
    let s = perf_event_sampler();
    let t = match software_thread(
        s,
        &["task-clock", "page-faults"],
        "thread_outlives_its_sampler",
    ) {
        Some(t) => t,
        None => return,
    };
    unsafe {
        expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        let before = sample(t);
        sys::kp_sampler_free(s); // a finalizer may run the parent's destructor first
        assert_eq!(touch_fresh_pages(PAGES), 0);
        let after = sample(t);
        assert!(
            after[0] > before[0],
            "task-clock did not advance after the sampler was freed"
        );
        assert!(
            after[1] - before[1] >= PAGES as u64,
            "{} pages touched but only {} page faults counted",
            PAGES,
            after[1] - before[1]
        );
        // Borrowed events stay valid until the last handle goes.
        assert_eq!(sys::kp_thread_event_count(t), 2);
        assert_eq!(
            c_string(sys::kp_event_name(sys::kp_thread_event_at(t, 1))).as_deref(),
            Some("page-faults")
        );
        expect_ok(sys::kp_thread_stop(t), "kp_thread_stop");
        sys::kp_thread_free(t);
    }
}

#[test]
fn sampler_outlives_its_threads() {
    let s = perf_event_sampler();
    let t = match software_thread(s, &["page-faults"], "sampler_outlives_its_threads") {
        Some(t) => t,
        None => return,
    };
    unsafe {
        expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        sys::kp_thread_free(t); // freed while running
        let name = CString::new("page-faults").unwrap();
        let mut e: *const sys::kp_event_t = ptr::null();
        expect_ok(
            sys::kp_sampler_event_find(&mut e, s, name.as_ptr()),
            "kp_sampler_event_find after kp_thread_free",
        );
        let t2 = software_thread(s, &["page-faults"], "sampler_outlives_its_threads").unwrap();
        expect_ok(
            sys::kp_thread_start(t2),
            "kp_thread_start on a second handle",
        );
        sys::kp_thread_free(t2);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn handles_freed_in_interleaved_order() {
    let s = perf_event_sampler();
    let mut threads = Vec::new();
    for _ in 0..4 {
        match software_thread(
            s,
            &["task-clock", "page-faults"],
            "handles_freed_in_interleaved_order",
        ) {
            Some(t) => threads.push(t),
            None => return,
        }
    }
    unsafe {
        for &t in &threads {
            expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        }
        sys::kp_thread_free(threads[2]);
        sys::kp_thread_free(threads[0]);
        sys::kp_sampler_free(s);
        let t = threads[3];
        let a = sample(t);
        assert_eq!(touch_fresh_pages(PAGES), 0);
        let b = sample(t);
        assert!(
            b[1] - a[1] >= PAGES as u64,
            "counting stopped when siblings and the sampler were freed"
        );
        sys::kp_thread_free(threads[3]);
        sys::kp_thread_free(threads[1]); // the last handle ends the session
    }
}

#[test]
fn stop_pauses_and_start_resumes() {
    let s = perf_event_sampler();
    let t = match software_thread(s, &["page-faults"], "stop_pauses_and_start_resumes") {
        Some(t) => t,
        None => return,
    };
    unsafe {
        assert_eq!(sys::kp_thread_is_running(t), 0);
        expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        expect_ok(
            sys::kp_thread_start(t),
            "kp_thread_start again (idempotent)",
        );
        assert_eq!(sys::kp_thread_is_running(t), 1);
        assert_eq!(touch_fresh_pages(PAGES), 0);
        expect_ok(sys::kp_thread_stop(t), "kp_thread_stop");
        expect_ok(sys::kp_thread_stop(t), "kp_thread_stop again (idempotent)");
        assert_eq!(sys::kp_thread_is_running(t), 0);
        let paused = sample(t);
        assert!(
            paused[0] >= PAGES as u64,
            "only {} faults for {} pages",
            paused[0],
            PAGES
        );
        assert_eq!(touch_fresh_pages(PAGES), 0);
        assert_eq!(sample(t), paused, "a stopped handle kept counting");
        expect_ok(sys::kp_thread_start(t), "kp_thread_start (resume)");
        assert_eq!(touch_fresh_pages(PAGES), 0);
        let resumed = sample(t);
        assert!(
            resumed[0] - paused[0] >= PAGES as u64,
            "totals did not resume after start"
        );
        sys::kp_thread_free(t);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn sample_full_reports_completeness() {
    let s = perf_event_sampler();
    let t = match software_thread(
        s,
        &["task-clock", "page-faults"],
        "sample_full_reports_completeness",
    ) {
        Some(t) => t,
        None => return,
    };
    let mut v = [0u64; 2];
    let mut complete = [7u8; 2];
    let (mut enabled, mut running) = (0u64, 0u64);
    unsafe {
        expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        assert_eq!(touch_fresh_pages(16), 0);
        expect_ok(
            sys::kp_thread_sample_full(
                t,
                v.as_mut_ptr(),
                complete.as_mut_ptr(),
                2,
                &mut enabled,
                &mut running,
            ),
            "kp_thread_sample_full",
        );
        for c in complete {
            assert!(c == 0 || c == 1, "complete flag is {}, not 0 or 1", c);
        }
        assert!(
            running <= enabled,
            "time running {} exceeds time enabled {}",
            running,
            enabled
        );
        // Optional outputs may be NULL.
        expect_ok(
            sys::kp_thread_sample_full(
                t,
                v.as_mut_ptr(),
                ptr::null_mut(),
                2,
                ptr::null_mut(),
                ptr::null_mut(),
            ),
            "kp_thread_sample_full(NULL optionals)",
        );
        sys::kp_thread_free(t);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn release_keeps_the_event_database_readable() {
    let s = perf_event_sampler();
    unsafe {
        let n = sys::kp_sampler_event_count(s);
        expect_ok(sys::kp_sampler_release(s), "kp_sampler_release");
        assert_eq!(sys::kp_sampler_event_count(s), n);
        let name = CString::new("page-faults").unwrap();
        let mut e: *const sys::kp_event_t = ptr::null();
        expect_ok(
            sys::kp_sampler_event_find(&mut e, s, name.as_ptr()),
            "kp_sampler_event_find after release",
        );
        assert_eq!(
            c_string(sys::kp_event_name(e)).as_deref(),
            Some("page-faults")
        );
        expect_status(
            sys::kp_sampler_access(s),
            sys::KP_ESTATE,
            "kp_sampler_access after release",
        );
        sys::kp_sampler_free(s);
    }
}
