//! kp_process_thread_count and kp_process_read_thread through FFI: this process attached
//! while two extra threads spin; one row per thread, adding up to the process total. Alone
//! in its binary: a thread created while the handle stops can escape the stop
//! (kpc/process.h), and other tests would have the harness create threads.
use std::collections::HashSet;
use std::ffi::CString;
use std::os::raw::c_char;
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use kpc_abi_tests::check::{expect_ok, expect_status, last_message};
use kpc_abi_tests::handles::perf_event_sampler;
use kpc_abi_tests::skip::skip;
use kpc_abi_tests::sys;

fn spin_for(d: Duration) {
    let end = Instant::now() + d;
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

/// Row `index`: (tid, task-clock, complete).
fn row(p: *mut sys::kp_process_t, index: usize) -> (i32, u64, u8) {
    let (mut tid, mut v, mut complete) = (-7i32, [0u64; 1], [9u8; 1]);
    expect_ok(
        unsafe {
            sys::kp_process_read_thread(
                p,
                index,
                &mut tid,
                v.as_mut_ptr(),
                complete.as_mut_ptr(),
                1,
            )
        },
        "kp_process_read_thread",
    );
    (tid, v[0], complete[0])
}

#[test]
fn rows_add_up_to_the_process_total() {
    let s = perf_event_sampler();
    let spinners = 2;
    let done = AtomicBool::new(false);
    let started = Barrier::new(spinners + 1);
    std::thread::scope(|scope| {
        for _ in 0..spinners {
            scope.spawn(|| {
                started.wait();
                while !done.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
        }
        started.wait(); // the spinners exist: each gets a row
        let name = CString::new("task-clock").unwrap();
        let names: [*const c_char; 1] = [name.as_ptr()];
        let mut p: *mut sys::kp_process_t = ptr::null_mut();
        let rc = unsafe { sys::kp_process_attach_ex(&mut p, s, names.as_ptr(), 1, 0, ptr::null()) };
        if rc == sys::KP_EPERM {
            done.store(true, Ordering::Relaxed);
            return skip("rows_add_up_to_the_process_total", &last_message());
        }
        expect_ok(rc, "kp_process_attach_ex(0)");
        spin_for(Duration::from_millis(100));
        expect_ok(unsafe { sys::kp_process_stop(p) }, "kp_process_stop");
        done.store(true, Ordering::Relaxed);

        let n = unsafe { sys::kp_process_thread_count(p) };
        assert!(
            n > spinners,
            "{} rows for this thread and {} spinners",
            n,
            spinners
        );
        let rows: Vec<(i32, u64, u8)> = (0..n).map(|i| row(p, i)).collect();
        let mut total = [0u64; 1];
        expect_ok(
            unsafe { sys::kp_process_read(p, total.as_mut_ptr(), 1) },
            "kp_process_read",
        );
        let sum: u64 = rows.iter().map(|r| r.1).sum();
        eprintln!("{} rows {:?}, total {}", n, rows, total[0]);
        assert_eq!(sum, total[0], "the rows add up to the total: {:?}", rows);
        assert!(
            rows.iter().filter(|r| r.1 > 0).count() > spinners,
            "{:?}",
            rows
        );
        let tids: HashSet<i32> = rows.iter().map(|r| r.0).collect();
        assert_eq!(tids.len(), n, "tids not distinct: {:?}", rows);
        assert!(tids.iter().all(|&t| t > 0), "{:?}", rows);
        assert!(rows.iter().all(|r| r.2 == 1), "{:?}", rows);

        // tid and complete are optional; values and a large enough buffer are not.
        let mut v = [0u64; 1];
        unsafe {
            expect_ok(
                sys::kp_process_read_thread(
                    p,
                    0,
                    ptr::null_mut(),
                    v.as_mut_ptr(),
                    ptr::null_mut(),
                    1,
                ),
                "kp_process_read_thread(tid and complete NULL)",
            );
            assert_eq!(v[0], rows[0].1);
            expect_status(
                sys::kp_process_read_thread(
                    p,
                    n,
                    ptr::null_mut(),
                    v.as_mut_ptr(),
                    ptr::null_mut(),
                    1,
                ),
                sys::KP_EINVAL,
                "kp_process_read_thread(index == count)",
            );
            expect_status(
                sys::kp_process_read_thread(
                    p,
                    0,
                    ptr::null_mut(),
                    ptr::null_mut(),
                    ptr::null_mut(),
                    1,
                ),
                sys::KP_EINVAL,
                "kp_process_read_thread(values NULL)",
            );
            expect_status(
                sys::kp_process_read_thread(
                    p,
                    0,
                    ptr::null_mut(),
                    v.as_mut_ptr(),
                    ptr::null_mut(),
                    0,
                ),
                sys::KP_EBUFSIZE,
                "kp_process_read_thread(count 0)",
            );
            sys::kp_process_free(p);
        }
    });
    unsafe { sys::kp_sampler_free(s) };
}
