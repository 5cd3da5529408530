//! Process with options (kp_process_spawn_ex): a partial set and event groups, and each
//! event's status (kp_process_event_status). perf_event; `cycles` stands for an event this
//! machine may not count (a VM without a PMU).
mod common;

use common::{skip, software_sampler};
use kpc::{ProcessOptions, Sampler, Status};

/// A short command that only spends CPU time.
const BUSY: [&str; 3] = [
    "sh",
    "-c",
    "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
];

/// Whether this machine counts cycles for a process (a PMU perf_event lets us use).
fn cycles_counts_here(s: &Sampler) -> bool {
    s.spawn(["true"], ["cycles"])
        .and_then(|p| p.wait().map(|_| ()))
        .is_ok()
}

#[test]
fn partial_reports_the_event_it_cannot_count() {
    let test = "partial_reports_the_event_it_cannot_count";
    let s = match software_sampler(test) {
        Some(s) => s,
        None => return,
    };
    if cycles_counts_here(&s) {
        return skip(
            test,
            "this machine counts cycles: no event to report as uncounted",
        );
    }
    let partial = ProcessOptions {
        partial: true,
        ..Default::default()
    };
    let p = s
        .spawn_with(BUSY, ["task-clock", "cycles"], &partial)
        .expect("spawn_with(partial)");
    assert!(p.wait().unwrap().success());
    let full = p.read_full().unwrap();
    let [clock, cycles] = full.values;
    assert!(clock > 0, "task-clock counted nothing");
    assert_eq!((cycles, full.complete[1]), (0, false));
    assert_eq!(p.event_status(0), Ok(()));
    let e = p.event_status(1).unwrap_err();
    assert_eq!(e.status(), Status::Unavailable, "{}", e);
    assert!(!e.message().is_empty(), "an uncounted event says why");
    assert_eq!(p.event_statuses(), [Ok(()), Err(e)]);
    let e = p.event_status(2).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument, "{}", e);
    // Without partial the same set fails as a whole, with the same code.
    let e = s.spawn(BUSY, ["task-clock", "cycles"]).unwrap_err();
    assert_eq!(e.status(), Status::Unavailable, "{}", e);
    assert!(!e.message().is_empty());
}

#[test]
fn one_group_counts_both_events() {
    let s = match software_sampler("one_group_counts_both_events") {
        Some(s) => s,
        None => return,
    };
    let grouped = ProcessOptions {
        groups: Some([0, 0]),
        ..Default::default()
    };
    // dd's 8 MiB buffer, filled once: about 2048 page faults.
    let dd = [
        "dd",
        "if=/dev/zero",
        "of=/dev/null",
        "bs=8M",
        "count=1",
        "status=none",
    ];
    let p = s
        .spawn_with(dd, ["task-clock", "page-faults"], &grouped)
        .expect("spawn_with(groups)");
    assert!(p.wait().unwrap().success());
    let [clock, faults] = p.read().unwrap();
    assert!(clock > 0, "task-clock counted nothing");
    assert!(faults >= 1000, "{} page faults for an 8 MiB buffer", faults);
    assert_eq!(p.event_statuses(), [Ok(()), Ok(())]);
}

#[test]
fn bad_groups_are_refused() {
    let s = match software_sampler("bad_groups_are_refused") {
        Some(s) => s,
        None => return,
    };
    let bad = ProcessOptions {
        groups: Some([0, -2]),
        ..Default::default()
    };
    let e = s
        .spawn_with(["true"], ["task-clock", "page-faults"], &bad)
        .unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument, "{}", e);
    assert!(e.message().contains("groups[1]"), "{}", e);
    let e = s
        .attach_with(0, ["task-clock", "page-faults"], &bad)
        .unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument, "{}", e);
}
