//! std::thread workers, each with its own kp_thread_t: counts stay with the thread that
//! made them, handles refuse use from other threads, and may be freed from any thread
//! (as a finalizer thread would).
use std::sync::{Arc, Barrier};
use std::thread;

use kpc_abi_tests::check::{c_string, expect_ok, expect_status, last_message};
use kpc_abi_tests::handles::{perf_event_sampler, sample, software_thread, SendPtr};
use kpc_abi_tests::memory::{spin, touch_fresh_pages};
use kpc_abi_tests::sys;

const BUSY_PAGES: usize = 2048;
const MAIN_PAGES: usize = 4096;

/// Worker "busy" touches BUSY_PAGES pages and spins; worker "idle" only waits; the main
/// thread touches MAIN_PAGES pages while both count. Each handle must show its own thread
/// only: busy sees its pages but not main's, idle sees neither.
#[test]
fn worker_counts_stay_isolated() {
    let s = SendPtr(perf_event_sampler());
    // Counting allowed at all? Otherwise skip before spawning anything.
    match software_thread(
        s.get(),
        &["task-clock", "page-faults"],
        "worker_counts_stay_isolated",
    ) {
        Some(t) => unsafe { sys::kp_thread_free(t) },
        None => return,
    }
    let started = Arc::new(Barrier::new(3));
    let finished = Arc::new(Barrier::new(3));
    let worker = |busy: bool| {
        let (started, finished) = (started.clone(), finished.clone());
        let s = SendPtr(s.get());
        thread::spawn(move || {
            let t = software_thread(
                s.get(),
                &["task-clock", "page-faults"],
                "worker_counts_stay_isolated",
            )
            .expect("counting was allowed on the main thread");
            unsafe { expect_ok(sys::kp_thread_start(t), "kp_thread_start") };
            let before = sample(t);
            started.wait();
            if busy {
                assert_eq!(touch_fresh_pages(BUSY_PAGES), 0);
                spin(5_000_000);
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
    assert_eq!(touch_fresh_pages(MAIN_PAGES), 0);
    finished.wait();
    let (busy_ns, busy_faults) = busy.join().expect("busy worker panicked");
    let (idle_ns, idle_faults) = idle.join().expect("idle worker panicked");
    unsafe { sys::kp_sampler_free(s.get()) };
    eprintln!(
        "busy: {} faults, {} ns; idle: {} faults, {} ns",
        busy_faults, busy_ns, idle_faults, idle_ns
    );

    assert!(
        busy_faults >= BUSY_PAGES as u64,
        "busy worker touched {} pages, counted {} faults",
        BUSY_PAGES,
        busy_faults
    );
    assert!(
        busy_faults < (BUSY_PAGES + MAIN_PAGES / 2) as u64,
        "busy worker counted {} faults: the main thread's {} pages leaked into it",
        busy_faults,
        MAIN_PAGES
    );
    assert!(
        idle_faults < (BUSY_PAGES / 8) as u64,
        "idle worker counted {} faults; its siblings touched {} pages",
        idle_faults,
        BUSY_PAGES + MAIN_PAGES
    );
    assert!(idle_ns > 0, "task-clock of a running handle stayed at zero");
    assert!(
        busy_ns > idle_ns,
        "the busy worker's task-clock ({} ns) is not above the idle one's ({} ns)",
        busy_ns,
        idle_ns
    );
}

/// Many workers share one sampler: handle creation and event lookup run concurrently.
#[test]
fn workers_share_one_sampler() {
    let s = SendPtr(perf_event_sampler());
    match software_thread(s.get(), &["page-faults"], "workers_share_one_sampler") {
        Some(t) => unsafe { sys::kp_thread_free(t) },
        None => return,
    }
    let workers: Vec<_> = (1..=4usize)
        .map(|i| {
            let s = SendPtr(s.get());
            thread::spawn(move || {
                let t = software_thread(
                    s.get(),
                    &["page-faults", "context-switches"],
                    "workers_share_one_sampler",
                )
                .expect("counting was allowed on the main thread");
                unsafe { expect_ok(sys::kp_thread_start(t), "kp_thread_start") };
                let pages = 256 * i;
                let before = sample(t);
                assert_eq!(touch_fresh_pages(pages), 0);
                let after = sample(t);
                unsafe { sys::kp_thread_free(t) };
                (pages as u64, after[0] - before[0])
            })
        })
        .collect();
    for w in workers {
        let (pages, faults) = w.join().expect("worker panicked");
        assert!(
            faults >= pages,
            "worker touched {} pages and counted {} faults",
            pages,
            faults
        );
        assert!(
            faults < pages + 256,
            "worker touched {} pages but counted {} faults",
            pages,
            faults
        );
    }
    unsafe { sys::kp_sampler_free(s.get()) };
}

#[test]
fn another_thread_gets_ewrong_thread() {
    unsafe { sys::kp_error_clear() };
    let s = perf_event_sampler();
    let t = match software_thread(
        s,
        &["task-clock", "page-faults"],
        "another_thread_gets_ewrong_thread",
    ) {
        Some(t) => t,
        None => return,
    };
    unsafe { expect_ok(sys::kp_thread_start(t), "kp_thread_start") };
    let before = sample(t);
    let handle = SendPtr(t);
    let messages = thread::spawn(move || {
        let t = handle.get();
        let mut v = [0u64; 2];
        let mut messages = Vec::new();
        unsafe {
            messages.push(expect_status(
                sys::kp_thread_sample(t, v.as_mut_ptr(), 2),
                sys::KP_EWRONG_THREAD,
                "kp_thread_sample from another thread",
            ));
            messages.push(expect_status(
                sys::kp_thread_stop(t),
                sys::KP_EWRONG_THREAD,
                "kp_thread_stop from another thread",
            ));
            messages.push(expect_status(
                sys::kp_thread_start(t),
                sys::KP_EWRONG_THREAD,
                "kp_thread_start from another thread",
            ));
            messages.push(expect_status(
                sys::kp_thread_sample_full(
                    t,
                    v.as_mut_ptr(),
                    std::ptr::null_mut(),
                    2,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                ),
                sys::KP_EWRONG_THREAD,
                "kp_thread_sample_full from another thread",
            ));
            // The accessors are allowed from any thread.
            assert_eq!(
                sys::kp_thread_is_running(t),
                1,
                "the refused stop must not have stopped the handle"
            );
            assert_eq!(sys::kp_thread_event_count(t), 2);
            assert_eq!(
                c_string(sys::kp_event_name(sys::kp_thread_event_at(t, 0))).as_deref(),
                Some("task-clock")
            );
        }
        messages
    })
    .join()
    .expect("the other thread panicked");
    for m in &messages {
        assert!(
            m.contains("thread that created it"),
            "message should explain the rule: {:?}",
            m
        );
    }
    // The failures were recorded on the other thread only, and the handle still works here.
    assert_eq!(
        unsafe { sys::kp_error_last_status() },
        sys::KP_OK,
        "{}",
        last_message()
    );
    assert_eq!(touch_fresh_pages(64), 0);
    let after = sample(t);
    assert!(
        after[1] - before[1] >= 64,
        "the handle stopped counting after refused calls"
    );
    unsafe {
        sys::kp_thread_free(t);
        sys::kp_sampler_free(s);
    }
}

/// A finalizer thread frees handles it did not create, in either order.
#[test]
fn handles_can_be_freed_on_another_thread() {
    for sampler_first in [true, false] {
        let s = perf_event_sampler();
        let t = match software_thread(s, &["task-clock"], "handles_can_be_freed_on_another_thread")
        {
            Some(t) => t,
            None => return,
        };
        unsafe { expect_ok(sys::kp_thread_start(t), "kp_thread_start") };
        let (s, t) = (SendPtr(s), SendPtr(t));
        thread::spawn(move || unsafe {
            if sampler_first {
                sys::kp_sampler_free(s.get());
                sys::kp_thread_free(t.get());
            } else {
                sys::kp_thread_free(t.get());
                sys::kp_sampler_free(s.get());
            }
        })
        .join()
        .expect("freeing on another thread panicked");
    }
}
