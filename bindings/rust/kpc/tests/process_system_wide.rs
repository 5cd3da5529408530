//! Sampler::system_wide (kp_process_attach_ex with KP_PROCESS_SYSTEM_WIDE): every CPU.
//! Linux allows it to root (this machine's tests) or with perf_event_paranoid <= 0.
mod common;

use std::time::Duration;

use common::{skip, software_sampler};
use kpc::{ProcessOptions, ProcessScope, Status};

#[test]
fn system_wide_counts_every_cpu() {
    let test = "system_wide_counts_every_cpu";
    let s = match software_sampler(test) {
        Some(s) => s,
        None => return,
    };
    let p = match s.system_wide(["task-clock", "context-switches"]) {
        Ok(p) => p,
        Err(e) if e.status() == Status::PermissionDenied => {
            return skip(
                test,
                &format!("system-wide counting is not allowed here: {}", e),
            )
        }
        Err(e) => panic!("system_wide: {}", e),
    };
    std::thread::sleep(Duration::from_millis(100));
    let [clock, _] = p.read().unwrap();
    // Every CPU's clock runs for the 100 ms, busy or idle, while this thread sleeps.
    assert!(clock > 50_000_000, "{} ns of task-clock over 100 ms", clock);
    assert_eq!(p.pid(), -1);
    assert_eq!(p.scope(0), Some(ProcessScope::System));
    assert_eq!(p.scope(1), Some(ProcessScope::System));
    assert_eq!(p.thread_count(), 0);
    let e = p.wait().unwrap_err();
    assert_eq!(e.status(), Status::BadState, "{}", e);
    assert!(!e.message().is_empty());
}

#[test]
fn a_negative_pid_is_not_system_wide() {
    let s = match software_sampler("a_negative_pid_is_not_system_wide") {
        Some(s) => s,
        None => return,
    };
    // -1 means every CPU only through system_wide, never by accident.
    let e = s.attach(-1, ["task-clock"]).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument, "{}", e);
    let e = s
        .attach_with(-1, ["task-clock"], &ProcessOptions::default())
        .unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument, "{}", e);
    assert!(e.message().contains("system_wide"), "{}", e);
}
