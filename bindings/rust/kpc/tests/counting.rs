//! ThreadSampler: counting on the calling thread, with the software events every Linux
//! machine has, and hardware events where the machine allows them.
mod common;

use common::{software_sampler, touch_fresh_pages};
use kpc::{Sampler, Status};

#[test]
fn counts_the_page_faults_of_fresh_pages() {
    let s = match software_sampler("counts_the_page_faults_of_fresh_pages") {
        Some(s) => s,
        None => return,
    };
    let mut t = s.thread(["page-faults", "task-clock"]).expect("thread");
    t.start().unwrap();
    assert!(t.is_running());
    let before = t.sample().unwrap();
    touch_fresh_pages(64);
    let after = t.sample().unwrap();
    let faults = after[0] - before[0];
    assert!(
        (64..64 + 16).contains(&faults),
        "{} page faults for 64 fresh pages",
        faults
    );
    assert!(after[1] > before[1], "task-clock did not advance");
}

#[test]
fn stop_pauses_and_start_resumes() {
    let s = match software_sampler("stop_pauses_and_start_resumes") {
        Some(s) => s,
        None => return,
    };
    let mut t = s.thread(["page-faults"]).unwrap();
    t.start().unwrap();
    t.stop().unwrap();
    assert!(!t.is_running());
    let paused = t.sample().unwrap();
    touch_fresh_pages(32);
    assert_eq!(t.sample().unwrap(), paused, "counted while stopped");
    t.start().unwrap();
    touch_fresh_pages(32);
    assert!(t.sample().unwrap()[0] >= paused[0] + 32);
}

#[test]
fn sample_into_and_sample_full_agree_with_sample() {
    let s = match software_sampler("sample_into_and_sample_full_agree_with_sample") {
        Some(s) => s,
        None => return,
    };
    let mut t = s.thread(["page-faults", "context-switches"]).unwrap();
    t.start().unwrap();
    t.stop().unwrap(); // frozen totals: every read must give the same values
    let mut into = [u64::MAX; 2];
    t.sample_into(&mut into).unwrap();
    let full = t.sample_full().unwrap();
    assert_eq!(into, t.sample().unwrap());
    assert_eq!(full.values, into);
    assert_eq!(
        full.complete,
        [true, true],
        "software events are never multiplexed"
    );
    assert!(full.time_running_ns <= full.time_enabled_ns);
}

#[test]
fn calibrate_finds_no_page_faults_in_an_empty_region() {
    let s = match software_sampler("calibrate_finds_no_page_faults_in_an_empty_region") {
        Some(s) => s,
        None => return,
    };
    let mut t = s.thread(["page-faults"]).unwrap();
    t.start().unwrap();
    assert_eq!(t.calibrate(0).unwrap(), [0]);
    assert_eq!(
        t.calibrate(1_000_001).unwrap_err().status(),
        Status::InvalidArgument
    );
}

#[test]
fn events_come_back_in_order() {
    let s = match software_sampler("events_come_back_in_order") {
        Some(s) => s,
        None => return,
    };
    let t = s.thread(["task-clock", "page-faults"]).unwrap();
    let names: Vec<String> = t.events().into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["task-clock", "page-faults"]);
}

#[test]
fn sampling_before_start_is_a_state_error() {
    let s = match software_sampler("sampling_before_start_is_a_state_error") {
        Some(s) => s,
        None => return,
    };
    let t = s.thread(["page-faults"]).unwrap();
    let e = t.sample().unwrap_err();
    assert_eq!(e.status(), Status::BadState);
    assert!(!e.message().is_empty());
}

#[test]
fn a_counter_listed_twice_is_refused_with_both_names() {
    let s = match software_sampler("a_counter_listed_twice_is_refused_with_both_names") {
        Some(s) => s,
        None => return,
    };
    let e = s
        .thread(["task-clock", "PERF_COUNT_SW_TASK_CLOCK"])
        .unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(
        e.message().contains("PERF_COUNT_SW_TASK_CLOCK"),
        "{}",
        e.message()
    );
}

#[test]
fn a_thread_sampler_outlives_its_sampler_until_released() {
    let s = match software_sampler("a_thread_sampler_outlives_its_sampler_until_released") {
        Some(s) => s,
        None => return,
    };
    let mut t = s.thread(["page-faults"]).unwrap();
    t.start().unwrap();
    drop(s); // the handle keeps the session alive
    let before = t.sample().unwrap();
    touch_fresh_pages(8);
    assert!(t.sample().unwrap()[0] >= before[0] + 8);

    let s = Sampler::new().unwrap();
    let mut t = s.thread(["page-faults"]).unwrap();
    t.start().unwrap();
    s.release().unwrap();
    assert_eq!(t.sample().unwrap_err().status(), Status::BadState);
}

#[test]
fn each_thread_counts_only_itself() {
    let s = match software_sampler("each_thread_counts_only_itself") {
        Some(s) => s,
        None => return,
    };
    let counted: Vec<u64> = std::thread::scope(|scope| {
        let workers: Vec<_> = [16usize, 48]
            .into_iter()
            .map(|pages| {
                let s = &s;
                scope.spawn(move || {
                    let mut t = s.thread(["page-faults"]).unwrap();
                    t.start().unwrap();
                    let before = t.sample().unwrap();
                    touch_fresh_pages(pages);
                    t.sample().unwrap()[0] - before[0]
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert!((16..16 + 8).contains(&counted[0]), "{:?}", counted);
    assert!((48..48 + 8).contains(&counted[1]), "{:?}", counted);
}

/// The thread rule is enforced by the type system: a ThreadSampler cannot be sent to, or
/// shared with, another thread. (If it were Send or Sync, the trait selection below would
/// be ambiguous and this file would not compile.)
#[test]
fn a_thread_sampler_stays_on_its_thread() {
    trait AmbiguousIfSend<A> {
        fn check() {}
    }
    impl<T: ?Sized> AmbiguousIfSend<()> for T {}
    impl<T: ?Sized + Send> AmbiguousIfSend<u8> for T {}
    trait AmbiguousIfSync<A> {
        fn check() {}
    }
    impl<T: ?Sized> AmbiguousIfSync<()> for T {}
    impl<T: ?Sized + Sync> AmbiguousIfSync<u8> for T {}
    <kpc::ThreadSampler<1> as AmbiguousIfSend<_>>::check();
    <kpc::ThreadSampler<1> as AmbiguousIfSync<_>>::check();
}
