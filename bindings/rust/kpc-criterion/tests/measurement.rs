//! HardwareCounter as Criterion's Measurement: values, errors, several counters at once.
#[path = "../../kpc/tests/common/mod.rs"]
mod common;

use std::time::Duration;

use common::{skip, touch_fresh_pages};
use criterion::measurement::Measurement;
use criterion::{black_box, Criterion};
use kpc_criterion::{HardwareCounter, Status};

/// page-faults is a perf_event (Linux) event; elsewhere these tests skip.
fn page_faults(test: &str) -> Option<HardwareCounter> {
    match HardwareCounter::custom("page-faults") {
        Ok(counter) => Some(counter),
        Err(e) if !cfg!(target_os = "linux") => {
            skip(test, &e.to_string());
            None
        }
        Err(e) => panic!("page-faults on Linux: {}", e),
    }
}

#[test]
fn measures_the_page_faults_between_start_and_end() {
    let m = match page_faults("measures_the_page_faults_between_start_and_end") {
        Some(m) => m,
        None => return,
    };
    assert_eq!(m.event().name, "page-faults");
    let start = m.start();
    touch_fresh_pages(64);
    let faults = m.end(start);
    assert!(
        (64..64 + 16).contains(&faults),
        "{} faults for 64 fresh pages",
        faults
    );
    assert_eq!(m.add(&faults, &m.zero()), faults);
    assert_eq!(m.to_f64(&faults), faults as f64);
    assert_eq!(m.formatter().format_value(64.0), "64.000 faults");
}

#[test]
fn the_overhead_of_page_faults_is_zero() {
    let m = match page_faults("the_overhead_of_page_faults_is_zero") {
        Some(m) => m.subtract_overhead().unwrap(),
        None => return,
    };
    assert_eq!(m.overhead(), 0);
}

/// Unlike darwin-kperf-criterion, any number of counters may live in one process, each
/// driving its own Criterion.
#[test]
fn several_counters_in_one_process() {
    let faults = match page_faults("several_counters_in_one_process") {
        Some(m) => m,
        None => return,
    };
    let clock = HardwareCounter::custom("task-clock").expect("task-clock with page-faults alive");
    let also_faults = HardwareCounter::custom("page-faults").expect("a second page-faults counter");

    let (s1, s2, s3) = (faults.start(), clock.start(), also_faults.start());
    touch_fresh_pages(32);
    let (f, t, f2) = (faults.end(s1), clock.end(s2), also_faults.end(s3));
    assert!(f >= 32 && f2 >= 32, "{} and {} faults", f, f2);
    assert!(t > 0, "task-clock did not advance");
    assert!(clock.formatter().format_value(2500.0).ends_with("µs"));

    // Both drive a (very short) Criterion run, one after the other, while both are alive.
    for measurement in [faults, clock] {
        let mut c = Criterion::default()
            .with_measurement(measurement)
            .warm_up_time(Duration::from_millis(50))
            .measurement_time(Duration::from_millis(100))
            .sample_size(10)
            .nresamples(1000) // the bootstrap is slow unoptimized
            .without_plots();
        c.bench_function("several_counters/touch 4 pages", |b| {
            b.iter(|| touch_fresh_pages(black_box(4)))
        });
    }
}

#[test]
fn an_unknown_event_is_an_error_not_a_panic() {
    let e = HardwareCounter::custom("page-faultz").unwrap_err();
    assert_eq!(e.status(), Status::UnknownEvent);
    assert!(e.message().contains("page-faultz"), "{}", e.message());
}
