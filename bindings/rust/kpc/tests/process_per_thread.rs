//! Process::read_thread (kp_process_thread_count, kp_process_read_thread): one row per
//! thread the attached process had. Alone in its binary: a thread created while the handle
//! stops can escape the stop (kpc/process.h), and other tests would create threads.
mod common;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use common::software_sampler;
use kpc::Status;

#[test]
fn rows_add_up_to_the_process_total() {
    let s = match software_sampler("rows_add_up_to_the_process_total") {
        Some(s) => s,
        None => return,
    };
    let burners = 2;
    let done = AtomicBool::new(false);
    let started = Barrier::new(burners + 1);
    std::thread::scope(|scope| {
        for _ in 0..burners {
            scope.spawn(|| {
                started.wait();
                while !done.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
        }
        started.wait(); // the burners exist: each gets a row
        let p = s.attach(0, ["task-clock"]).expect("attach(0)");
        let end = Instant::now() + Duration::from_millis(100);
        while Instant::now() < end {
            std::hint::spin_loop();
        }
        p.stop().unwrap();
        done.store(true, Ordering::Relaxed);
        let n = p.thread_count();
        assert!(
            n >= burners + 1,
            "{} rows for this thread and {} burners",
            n,
            burners
        );
        let rows = p.read_threads().unwrap();
        assert_eq!(rows.len(), n);
        let total = p.read().unwrap()[0];
        let sum: u64 = rows.iter().map(|r| r.values[0]).sum();
        assert_eq!(sum, total, "rows {:?}", rows);
        let ran = rows.iter().filter(|r| r.values[0] > 0).count();
        assert!(ran > burners, "only {} rows counted time: {:?}", ran, rows);
        let tids: HashSet<i32> = rows.iter().map(|r| r.tid).collect();
        assert_eq!(tids.len(), n, "tids not distinct: {:?}", rows);
        assert!(tids.iter().all(|&t| t > 0), "{:?}", rows);
        assert!(rows.iter().all(|r| r.complete == [true]));
        let e = p.read_thread(n).unwrap_err();
        assert_eq!(e.status(), Status::InvalidArgument, "{}", e);
    });
}
