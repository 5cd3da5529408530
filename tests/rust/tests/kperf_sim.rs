//! The kperf backend through FFI, against the simulator libraries in tests/kperf_sim that
//! export Apple's kperf/kperfdata symbols. CTest (rust_kperf_sim) sets KPC_BACKEND=kperf
//! and KPC_KPERF_PATH / KPC_KPERFDATA_PATH to the simulator; the tests steer it through
//! its kpsim_* controls to reach the codes a Mac can produce (load, permission, busy,
//! framework, kernel and conflict errors), and check that handles freed in any order
//! leave the simulated kernel as they found it.
use std::ffi::CString;
use std::mem::size_of;
use std::os::raw::c_int;
use std::ptr;
use std::sync::{Arc, Barrier};
use std::thread;

use kpc_abi_tests::check::{c_string, expect_ok, expect_status, status_name};
use kpc_abi_tests::handles::{
    options, perf_event_sampler, sample, thread as new_thread, try_sampler, try_thread, SendPtr,
};
use kpc_abi_tests::kpsim::Sim;
use kpc_abi_tests::memory::spin;
use kpc_abi_tests::skip::skip;
use kpc_abi_tests::sys;

const EIO: c_int = 5;
const KPEP_ERR_DB_NOT_FOUND: c_int = 7;

fn simulator(test: &str) -> Option<Sim> {
    match Sim::from_env() {
        Ok(sim) => Some(sim),
        Err(reason) => {
            skip(test, &reason);
            None
        }
    }
}

/// Options naming the simulator explicitly (not through the environment).
fn sim_options(sim: &Sim) -> sys::kp_sampler_options_t {
    let mut opts = options(sys::KP_BACKEND_KPERF);
    opts.kperf_path = sim.kperf_path.as_ptr();
    opts.kperfdata_path = sim.kperfdata_path.as_ptr();
    opts
}

fn kperf_sampler(sim: &Sim) -> *mut sys::kp_sampler_t {
    match try_sampler(&sim_options(sim)) {
        Ok(s) => s,
        Err((rc, m)) => panic!(
            "kp_sampler_new(kperf simulator) failed with {}: {}",
            status_name(rc),
            m
        ),
    }
}

fn assert_kernel_clean(sim: &Sim, when: &str) {
    let st = sim.state();
    assert_eq!(
        (st.counting, st.thread_counting, st.force_owner),
        (0, 0, 0),
        "{}: the simulated kernel still counts or holds the counters: {:?}",
        when,
        st
    );
}

#[test]
fn the_environment_selects_the_simulator() {
    let sim = match simulator("the_environment_selects_the_simulator") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let mut s: *mut sys::kp_sampler_t = ptr::null_mut();
    // NULL options: KPC_BACKEND and the KPC_*_PATH variables decide, as for a user.
    expect_ok(
        unsafe { sys::kp_sampler_new(&mut s, ptr::null()) },
        "kp_sampler_new(NULL options)",
    );
    unsafe {
        assert_eq!(sys::kp_sampler_backend(s), sys::KP_BACKEND_KPERF as i32);
        assert_eq!(
            c_string(sys::kp_sampler_backend_name(s)).as_deref(),
            Some("kperf")
        );
        assert!(!c_string(sys::kp_sampler_cpu_id(s)).unwrap().is_empty());
        let pmu = c_string(sys::kp_sampler_pmu_name(s)).unwrap();
        assert!(
            pmu.contains("Apple"),
            "the simulator is an Apple PMU, got {:?}",
            pmu
        );
        let (mut fixed, mut configurable) = (0u32, 0u32);
        expect_ok(
            sys::kp_sampler_counter_count(&mut fixed, &mut configurable, s),
            "kp_sampler_counter_count",
        );
        assert!(
            fixed > 0 && configurable > 0,
            "counters {} fixed / {} configurable",
            fixed,
            configurable
        );
        expect_ok(
            sys::kp_sampler_access(s),
            "kp_sampler_access (simulated root)",
        );
        sys::kp_sampler_free(s);
    }
    assert_kernel_clean(&sim, "after kp_sampler_free");
}

#[test]
fn threads_count_their_own_cycles() {
    let sim = match simulator("threads_count_their_own_cycles") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let s = SendPtr(kperf_sampler(&sim));
    let started = Arc::new(Barrier::new(3));
    let finished = Arc::new(Barrier::new(3));
    let worker = |busy: bool| {
        let (started, finished, s) = (started.clone(), finished.clone(), SendPtr(s.get()));
        thread::spawn(move || {
            // Apple's configuration is system-wide: both handles count the same events.
            let t = new_thread(s.get(), &["cycles", "instructions"]);
            unsafe { expect_ok(sys::kp_thread_start(t), "kp_thread_start") };
            let before = sample(t);
            started.wait();
            if busy {
                spin(20_000_000);
            }
            finished.wait();
            let after = sample(t);
            unsafe { sys::kp_thread_free(t) };
            (after[0] - before[0], after[1] - before[1])
        })
    };
    let busy = worker(true);
    let idle = worker(false);
    started.wait();
    spin(20_000_000); // the main thread's work must show up in neither handle
    finished.wait();
    let (busy_cycles, busy_instructions) = busy.join().expect("busy worker panicked");
    let (idle_cycles, _) = idle.join().expect("idle worker panicked");
    unsafe { sys::kp_sampler_free(s.get()) };
    eprintln!(
        "busy: {} cycles, {} instructions; idle: {} cycles",
        busy_cycles, busy_instructions, idle_cycles
    );
    assert!(
        busy_cycles > 0 && busy_instructions > 0,
        "the busy worker counted nothing"
    );
    assert!(
        idle_cycles * 10 < busy_cycles,
        "idle worker counted {} cycles against the busy worker's {}: another thread's work leaked in",
        idle_cycles,
        busy_cycles
    );
    assert_kernel_clean(&sim, "after every handle was freed");
}

#[test]
fn missing_frameworks_are_eload() {
    let sim = match simulator("missing_frameworks_are_eload") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let bogus = CString::new("/nonexistent/kperf.framework/kperf").unwrap();
    let mut opts = sim_options(&sim);
    opts.kperf_path = bogus.as_ptr();
    let (rc, m) = try_sampler(&opts).expect_err("a missing framework was loaded");
    assert_eq!(rc, sys::KP_ELOAD, "{}: {}", status_name(rc), m);
    assert!(
        m.contains("/nonexistent/kperf.framework/kperf"),
        "message should name the path: {:?}",
        m
    );
    assert!(
        m.contains("KPC_KPERF_PATH"),
        "message should name the fix: {:?}",
        m
    );

    if let Ok(missing) = std::env::var("KPSIM_KPERF_MISSING_PATH") {
        // A framework that lacks one required symbol.
        let missing = CString::new(missing).unwrap();
        opts.kperf_path = missing.as_ptr();
        let (rc, m) = try_sampler(&opts)
            .expect_err("a framework without kpc_get_thread_counters was accepted");
        assert_eq!(rc, sys::KP_ELOAD, "{}: {}", status_name(rc), m);
        assert!(
            m.contains("kpc_get_thread_counters"),
            "message should name the symbol: {:?}",
            m
        );
    }
}

#[test]
fn kpep_failures_are_eframework() {
    let sim = match simulator("kpep_failures_are_eframework") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let live_before = sim.live_objects();
    sim.data_fail("kpep_db_create", 1, KPEP_ERR_DB_NOT_FOUND);
    let (rc, m) =
        try_sampler(&sim_options(&sim)).expect_err("kp_sampler_new ignored a kpep failure");
    assert_eq!(rc, sys::KP_EFRAMEWORK, "{}: {}", status_name(rc), m);
    assert!(
        m.contains("kpep_db_create"),
        "message should name the call: {:?}",
        m
    );
    assert_eq!(
        unsafe { sys::kp_error_last_os_code() },
        KPEP_ERR_DB_NOT_FOUND,
        "the kpep code is the OS code"
    );
    assert_eq!(
        sim.live_objects(),
        live_before,
        "a failed kp_sampler_new leaked kpep objects"
    );
    assert_kernel_clean(&sim, "after a failed kp_sampler_new");
}

#[test]
fn without_root_counting_is_eperm() {
    let sim = match simulator("without_root_counting_is_eperm") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    sim.set_root(false);
    // Creation still works so the event database stays readable without root.
    let s = kperf_sampler(&sim);
    unsafe {
        assert!(sys::kp_sampler_event_count(s) > 0);
        let m = expect_status(
            sys::kp_sampler_access(s),
            sys::KP_EPERM,
            "kp_sampler_access without root",
        );
        assert!(
            m.contains("root"),
            "message should say root is needed: {:?}",
            m
        );
        let (rc, m) = try_thread(s, &["cycles"]).expect_err("kp_thread_new counted without root");
        assert_eq!(rc, sys::KP_EPERM, "{}: {}", status_name(rc), m);
        sys::kp_sampler_free(s);
    }
    assert_kernel_clean(&sim, "after kp_sampler_free");
}

#[test]
fn counters_held_elsewhere_are_ebusy() {
    let sim = match simulator("counters_held_elsewhere_are_ebusy") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    for pmu_busy in [true, false] {
        // true: another CPC owner (Instruments) holds the PMU; false: another process
        // forced all counters.
        let what = if pmu_busy {
            "another CPC owner"
        } else {
            "counters forced by another process"
        };
        sim.reset();
        if pmu_busy {
            sim.set_pmu_busy(true);
        } else {
            sim.set_force_held_elsewhere(true);
        }
        let s = kperf_sampler(&sim);
        unsafe {
            let m = expect_status(
                sys::kp_sampler_access(s),
                sys::KP_EBUSY,
                &format!("kp_sampler_access with {}", what),
            );
            assert!(
                m.contains("another"),
                "message should name the other owner: {:?}",
                m
            );
            let (rc, _) =
                try_thread(s, &["cycles"]).expect_err("kp_thread_new counted on busy counters");
            assert_eq!(
                rc,
                sys::KP_EBUSY,
                "kp_thread_new with {}: {}",
                what,
                status_name(rc)
            );
            sys::kp_sampler_free(s);
        }
    }
}

#[test]
fn a_second_configuration_is_ebusy_while_one_counts() {
    let sim = match simulator("a_second_configuration_is_ebusy_while_one_counts") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let s = kperf_sampler(&sim);
    let t = new_thread(s, &["cycles", "instructions"]);
    unsafe {
        expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        let (rc, m) =
            try_thread(s, &["cycles", "branches"]).expect_err("two configurations counted at once");
        assert_eq!(rc, sys::KP_EBUSY, "{}: {}", status_name(rc), m);
        assert!(
            m.contains("system-wide"),
            "message should explain the one-configuration rule: {:?}",
            m
        );
        let same = new_thread(s, &["cycles", "instructions"]);
        expect_ok(
            sys::kp_thread_start(same),
            "kp_thread_start of the same configuration",
        );
        sys::kp_thread_free(same);
        sys::kp_thread_free(t);
        sys::kp_sampler_free(s);
    }
    assert_kernel_clean(&sim, "after every handle was freed");
}

#[test]
fn events_sharing_one_counter_are_econflict() {
    let sim = match simulator("events_sharing_one_counter_are_econflict") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let s = kperf_sampler(&sim);
    let name = CString::new("cycles").unwrap();
    let mut e: *const sys::kp_event_t = ptr::null();
    unsafe {
        expect_ok(
            sys::kp_sampler_event_find(&mut e, s, name.as_ptr()),
            "kp_sampler_event_find(cycles)",
        );
        assert_eq!(
            sys::kp_event_kind(e),
            sys::KP_EVENT_FIXED as i32,
            "cycles is a fixed counter on Apple"
        );
        // The generic name and its native name are one counter listed twice: KP_EINVAL.
        let native = c_string(sys::kp_event_native_name(e)).unwrap();
        let (rc, m) =
            try_thread(s, &["cycles", &native]).expect_err("one counter was listed twice");
        assert_eq!(rc, sys::KP_EINVAL, "{}: {}", status_name(rc), m);
        assert!(
            m.contains(&native) && m.contains("cycles"),
            "message should name both names: {:?}",
            m
        );
        // Two different events that can only use counter 7 (M1): KP_ECONFLICT.
        let (rc, m) = try_thread(s, &["INST_ALL", "INST_LDST"])
            .expect_err("two events shared counter 7");
        assert_eq!(rc, sys::KP_ECONFLICT, "{}: {}", status_name(rc), m);
        assert!(
            m.contains("INST_ALL") && m.contains("INST_LDST"),
            "message should name the events: {:?}",
            m
        );
        sys::kp_sampler_free(s);
    }
}

#[test]
fn software_events_are_eunavailable() {
    let sim = match simulator("software_events_are_eunavailable") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let s = kperf_sampler(&sim);
    let (rc, m) = try_thread(s, &["task-clock"]).expect_err("kperf counted a software event");
    assert_eq!(rc, sys::KP_EUNAVAILABLE, "{}: {}", status_name(rc), m);
    assert!(
        m.contains("perf_event"),
        "message should point at the perf_event backend: {:?}",
        m
    );
    unsafe { sys::kp_sampler_free(s) };
}

#[test]
fn kernel_refusals_are_ekernel() {
    let sim = match simulator("kernel_refusals_are_ekernel") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let s = kperf_sampler(&sim);
    sim.fail("kpc_set_config", 1, EIO);
    let (rc, m) =
        try_thread(s, &["cycles", "branches"]).expect_err("kpc_set_config failure ignored");
    assert_eq!(rc, sys::KP_EKERNEL, "{}: {}", status_name(rc), m);
    assert!(
        m.contains("kpc_set_config"),
        "message should name the call: {:?}",
        m
    );
    let t = new_thread(s, &["cycles", "branches"]);
    let mut v = [0u64; 2];
    unsafe {
        expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        sim.fail("kpc_get_thread_counters", 1, EIO);
        let m = expect_status(
            sys::kp_thread_sample(t, v.as_mut_ptr(), 2),
            sys::KP_EKERNEL,
            "kp_thread_sample with a failing read",
        );
        assert!(
            m.contains("kpc_get_thread_counters"),
            "message should name the call: {:?}",
            m
        );
        assert_eq!(sys::kp_error_last_os_code(), EIO, "errno is the OS code");
        expect_ok(
            sys::kp_thread_sample(t, v.as_mut_ptr(), 2),
            "kp_thread_sample once the kernel recovers",
        );
        sys::kp_thread_free(t);
        sys::kp_sampler_free(s);
    }
    assert_kernel_clean(&sim, "after every handle was freed");
}

#[test]
fn handles_freed_in_any_order_restore_the_kernel() {
    let sim = match simulator("handles_freed_in_any_order_restore_the_kernel") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let live_before = sim.live_objects();
    for sampler_first in [true, false] {
        let s = kperf_sampler(&sim);
        let t = new_thread(s, &["cycles", "instructions"]);
        unsafe {
            expect_ok(sys::kp_thread_start(t), "kp_thread_start");
            let st = sim.state();
            assert!(
                st.force_owner == 1 && st.thread_counting != 0,
                "counting did not reach the kernel: {:?}",
                st
            );
            if sampler_first {
                sys::kp_sampler_free(s);
                spin(100_000);
                let v = sample(t);
                assert!(
                    v[0] > 0,
                    "the handle stopped counting when its sampler was freed"
                );
                sys::kp_thread_free(t);
            } else {
                sys::kp_thread_free(t);
                sys::kp_sampler_free(s);
            }
        }
        assert_kernel_clean(
            &sim,
            if sampler_first {
                "sampler freed, then thread"
            } else {
                "thread freed, then sampler"
            },
        );
        assert_eq!(sim.live_objects(), live_before, "kpep objects leaked");
    }
}

#[test]
fn release_gives_the_counters_back() {
    let sim = match simulator("release_gives_the_counters_back") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let s = kperf_sampler(&sim);
    let t = new_thread(s, &["cycles"]);
    let mut v = [0u64; 1];
    unsafe {
        expect_ok(sys::kp_thread_start(t), "kp_thread_start");
        expect_ok(sys::kp_sampler_release(s), "kp_sampler_release");
        assert_kernel_clean(&sim, "after kp_sampler_release");
        expect_status(
            sys::kp_thread_sample(t, v.as_mut_ptr(), 1),
            sys::KP_ESTATE,
            "kp_thread_sample after release",
        );
        expect_status(
            sys::kp_sampler_access(s),
            sys::KP_ESTATE,
            "kp_sampler_access after release",
        );
        assert!(
            sys::kp_sampler_event_count(s) > 0,
            "the event database must stay readable"
        );
        sys::kp_thread_free(t);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn another_thread_gets_ewrong_thread() {
    let sim = match simulator("another_thread_gets_ewrong_thread") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let s = kperf_sampler(&sim);
    let t = new_thread(s, &["cycles"]);
    unsafe { expect_ok(sys::kp_thread_start(t), "kp_thread_start") };
    let handle = SendPtr(t);
    thread::spawn(move || {
        let mut v = [0u64; 1];
        expect_status(
            unsafe { sys::kp_thread_sample(handle.get(), v.as_mut_ptr(), 1) },
            sys::KP_EWRONG_THREAD,
            "kp_thread_sample from another thread",
        );
    })
    .join()
    .expect("the other thread panicked");
    unsafe {
        sys::kp_thread_free(t);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn the_raw_function_table() {
    let sim = match simulator("the_raw_function_table") {
        Some(s) => s,
        None => return,
    };
    let _serial = sim.begin();
    let s = kperf_sampler(&sim);
    let mut api: *const sys::kp_kperf_api_t = ptr::null();
    unsafe {
        expect_ok(
            sys::kp_sampler_kperf_api(&mut api, s),
            "kp_sampler_kperf_api",
        );
        let api = &*api;
        assert_eq!(
            api.size,
            size_of::<sys::kp_kperf_api_t>(),
            "the table's size member vs the header's struct"
        );
        let pmu_version = api.kpc_pmu_version.expect("kpc_pmu_version is never NULL")();
        assert_eq!(pmu_version, sys::KP_KPC_PMU_ARM_APPLE);
        let (mut fixed, mut configurable) = (0u32, 0u32);
        expect_ok(
            sys::kp_sampler_counter_count(&mut fixed, &mut configurable, s),
            "kp_sampler_counter_count",
        );
        let get_count = api
            .kpc_get_counter_count
            .expect("kpc_get_counter_count is never NULL");
        assert_eq!(get_count(sys::KP_KPC_CLASS_FIXED_MASK), fixed);
        assert_eq!(get_count(sys::KP_KPC_CLASS_CONFIGURABLE_MASK), configurable);
        assert!(api.kpep_db_create.is_some() && api.kpep_db_free.is_some());

        // What the backend found: the short db name from the struct, the stride, and the
        // configurable counters before and after forcing (5 and 8; 8 and 8 under the
        // simulator's KPSIM_COUNT_BEFORE_FORCE=same variant).
        let mut info: sys::kp_kperf_info_t = std::mem::zeroed();
        expect_ok(sys::kp_sampler_kperf_info(&mut info, s), "kp_sampler_kperf_info");
        assert_eq!(c_string(info.db_name).as_deref(), Some("a14"));
        assert!(info.event_stride == 56 || info.event_stride == 48);
        assert_eq!(info.chip_known, 1);
        let same = std::env::var("KPSIM_COUNT_BEFORE_FORCE").as_deref() == Ok("same");
        assert_eq!(info.configurable_before_force, if same { 8 } else { 5 });
        assert_eq!(info.configurable_after_force, 8);
        expect_status(
            sys::kp_sampler_kperf_info(ptr::null_mut(), s),
            sys::KP_EINVAL,
            "kp_sampler_kperf_info(out=NULL)",
        );

        expect_status(
            sys::kp_sampler_kperf_api(ptr::null_mut(), s),
            sys::KP_EINVAL,
            "kp_sampler_kperf_api(out=NULL)",
        );
        sys::kp_sampler_free(s);
    }
    // Only the kperf backend has the table.
    let p = perf_event_sampler();
    let mut api: *const sys::kp_kperf_api_t = ptr::null();
    unsafe {
        let m = expect_status(
            sys::kp_sampler_kperf_api(&mut api, p),
            sys::KP_EUNSUPPORTED,
            "kp_sampler_kperf_api on perf_event",
        );
        assert!(
            m.contains("perf_event"),
            "message should name the backend in use: {:?}",
            m
        );
        assert!(api.is_null());
        sys::kp_sampler_free(p);
    }
}
