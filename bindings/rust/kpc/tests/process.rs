//! Process: a whole process counted with perf_event's software events (Linux).
mod common;

use common::{skip, software_sampler, touch_fresh_pages};
use kpc::{Process, ProcessExit, ProcessScope, Status};

/// What `workload touch N` faults besides its N pages (loader, libc): about 60 here.
const STARTUP_FAULTS: u64 = 400;

/// tests/cli's `workload` program (CTest passes its path).
fn workload(test: &str) -> Option<String> {
    let path = std::env::var("KPC_TEST_WORKLOAD").ok();
    if path.is_none() {
        skip(
            test,
            "KPC_TEST_WORKLOAD is not set (CTest sets it to tests/cli's workload)",
        );
    }
    path
}

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn a_spawned_command_counts_its_pages() {
    let test = "a_spawned_command_counts_its_pages";
    let (s, w) = match (software_sampler(test), workload(test)) {
        (Some(s), Some(w)) => (s, w),
        _ => return,
    };
    let pages = 2000u64;
    let p = s
        .spawn(
            [w.as_str(), "touch", &pages.to_string()],
            ["page-faults", "task-clock"],
        )
        .expect("spawn");
    assert!(p.pid() > 0 && p.pid() != std::process::id() as i32);
    let exit = p.wait().expect("wait");
    assert!(exit.success(), "{:?}", exit);
    let [faults, clock] = p.read().expect("read");
    assert!(
        (pages..=pages + STARTUP_FAULTS).contains(&faults),
        "{} page faults for a command touching {} pages",
        faults,
        pages
    );
    assert!(clock > 0);
    assert_eq!(p.scope(0), Some(ProcessScope::Tree));
    assert_eq!(p.scope(2), None);
    let full = p.read_full().expect("read_full");
    assert_eq!(
        full.values,
        [faults, clock],
        "the totals of an ended command stay"
    );
    assert_eq!(full.complete, [true, true]);
    for i in 0..2 {
        assert!(full.time_running_ns[i] <= full.time_enabled_ns[i]);
    }
    let names: Vec<String> = p.events().into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["page-faults", "task-clock"]);
}

#[test]
fn wait_gives_the_exit_code_or_the_signal() {
    let s = match software_sampler("wait_gives_the_exit_code_or_the_signal") {
        Some(s) => s,
        None => return,
    };
    let p = s.spawn(["sh", "-c", "exit 3"], ["task-clock"]).unwrap();
    let three = ProcessExit {
        code: Some(3),
        signal: None,
    };
    assert_eq!(p.wait().unwrap(), three);
    assert_eq!(
        p.wait().unwrap(),
        three,
        "a second wait gives the same result"
    );
    let p = s
        .spawn(["sh", "-c", "kill -KILL $$"], ["task-clock"])
        .unwrap();
    let exit = p.wait().unwrap();
    assert_eq!((exit.code, exit.signal), (None, Some(libc::SIGKILL)));
}

#[test]
fn attach_to_self_counts_every_thread() {
    let s = match software_sampler("attach_to_self_counts_every_thread") {
        Some(s) => s,
        None => return,
    };
    let (threads, pages) = (4u64, 300u64);
    let p: Process<1> = s.attach(0, ["page-faults"]).expect("attach");
    assert_eq!(p.pid(), std::process::id() as i32);
    let before = p.read().unwrap()[0];
    // Threads started after the attach are followed too.
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| touch_fresh_pages(pages as usize));
        }
    });
    let counted = p.read().unwrap()[0] - before;
    assert!(counted >= threads * pages, "{} page faults", counted);
}

#[test]
fn one_thread_waits_while_another_reads_and_stops() {
    let s = match software_sampler("one_thread_waits_while_another_reads_and_stops") {
        Some(s) => s,
        None => return,
    };
    assert_send_sync::<Process<2>>();
    let p = s.spawn(["sleep", "0.3"], ["task-clock"]).unwrap();
    std::thread::scope(|scope| {
        let waiter = scope.spawn(|| p.wait());
        p.read().expect("read during the wait");
        p.stop().unwrap();
        assert!(!p.is_counting());
        p.start().unwrap();
        assert!(p.is_counting());
        assert!(waiter.join().unwrap().unwrap().success());
    });
}

#[test]
fn stop_pauses_and_start_resumes() {
    let s = match software_sampler("stop_pauses_and_start_resumes") {
        Some(s) => s,
        None => return,
    };
    let p = s.attach(0, ["page-faults"]).unwrap();
    p.stop().unwrap();
    let paused = p.read().unwrap()[0];
    touch_fresh_pages(1000);
    // Only a thread created at the very moment of the stop could escape it (kpc/process.h).
    assert!(p.read().unwrap()[0] - paused < 500, "counted while stopped");
    p.start().unwrap();
    touch_fresh_pages(1000);
    assert!(p.read().unwrap()[0] - paused >= 1000);
}

#[test]
fn errors_carry_the_status_and_the_message() {
    let s = match software_sampler("errors_carry_the_status_and_the_message") {
        Some(s) => s,
        None => return,
    };
    let e = s
        .spawn(["kpc-no-such-program"], ["task-clock"])
        .unwrap_err();
    assert_eq!(e.status(), Status::Exec);
    assert!(e.message().contains("kpc-no-such-program"), "{}", e);
    assert_eq!(e.os_code(), libc::ENOENT);
    let e = s.spawn(Vec::<&str>::new(), ["task-clock"]).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    let e = s.spawn(["sh", "a\0b"], ["task-clock"]).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    let e = s.attach(0, ["no-such-event"]).unwrap_err();
    assert_eq!(e.status(), Status::UnknownEvent);
    assert!(e.message().contains("no-such-event"), "{}", e);
    let e = s.attach(-5, ["task-clock"]).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    let p = s.attach(0, ["task-clock"]).unwrap();
    let e = p.wait().unwrap_err();
    assert_eq!(e.status(), Status::BadState);
    assert!(!e.message().is_empty());
}

#[test]
fn drop_kills_a_command_not_waited_for() {
    let s = match software_sampler("drop_kills_a_command_not_waited_for") {
        Some(s) => s,
        None => return,
    };
    let p = s.spawn(["sleep", "30"], ["task-clock"]).unwrap();
    let pid = p.pid();
    drop(p);
    // SAFETY: signal 0 only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    assert!(!alive, "pid {} outlived its Process (or is a zombie)", pid);
}

#[test]
fn a_process_outlives_its_sampler() {
    let s = match software_sampler("a_process_outlives_its_sampler") {
        Some(s) => s,
        None => return,
    };
    let p = s.attach(0, ["task-clock"]).unwrap();
    drop(s);
    assert!(p.read().unwrap()[0] > 0);
}
