//! Sampler: session information, the event database, errors before counting.
mod common;

use kpc::{Backend, EventKind, EventUnit, Sampler, SamplerOptions, Status};

#[test]
fn describes_backend_and_cpu() {
    let s = Sampler::new().expect("Sampler::new");
    let name = s.backend_name();
    let expected = match s.backend() {
        Some(Backend::Kperf) => "kperf",
        Some(Backend::PerfEvent) => "perf_event",
        Some(Backend::Recount) => "recount",
        other => panic!("unexpected backend {:?} ({})", other, name),
    };
    assert_eq!(name, expected);
    assert!(!s.backend_reason().is_empty());
    assert!(!s.cpu_id().is_empty());
    assert!(!s.pmu_name().is_empty());
    assert!(!kpc::version().is_empty());
}

#[test]
fn explicit_options_choose_the_backend() {
    let backend = if cfg!(target_os = "linux") {
        Backend::PerfEvent
    } else {
        Backend::Kperf
    };
    let options = SamplerOptions {
        backend: Some(backend),
        ..SamplerOptions::default()
    };
    let s = Sampler::with_options(&options).expect("Sampler::with_options");
    assert_eq!(s.backend(), Some(backend));
    assert!(
        s.backend_reason().contains("caller"),
        "{}",
        s.backend_reason()
    );
}

#[test]
fn lists_and_finds_events() {
    let s = Sampler::new().unwrap();
    let events = s.events();
    let cycles = events
        .iter()
        .find(|e| e.name == "cycles")
        .expect("cycles in the database");
    assert!(cycles.is_generic);
    let found = s.find_event("cycles").expect("find cycles");
    assert_eq!(&found, cycles);
    if s.backend() == Some(Backend::PerfEvent) {
        let faults = s.find_event("page-faults").unwrap();
        assert_eq!(faults.kind, Some(EventKind::Software));
        assert_eq!(faults.unit, Some(EventUnit::Count));
        let clock = s.find_event("task-clock").unwrap();
        assert_eq!(clock.unit, Some(EventUnit::Nanoseconds));
        assert!(faults.is_available, "{}", faults.unavailable_reason);
        assert_eq!(faults.unavailable_reason, "");
    }
}

#[test]
fn an_unknown_event_is_an_error_that_names_it() {
    let s = Sampler::new().unwrap();
    let e = s.find_event("cyclez").unwrap_err();
    assert_eq!(e.status(), Status::UnknownEvent);
    assert_eq!(e.code(), -8);
    assert!(e.message().contains("cyclez"), "{}", e.message());
    // Display carries the message and the status text.
    let shown = e.to_string();
    assert!(
        shown.starts_with(e.message()) && shown.contains("code -8"),
        "{}",
        shown
    );
    let e = s.thread(["cyclez"]).unwrap_err();
    assert_eq!(e.status(), Status::UnknownEvent);
}

#[test]
fn a_nul_byte_is_refused_before_calling_libkpc() {
    let s = Sampler::new().unwrap();
    let e = s.thread(["page\0faults"]).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(e.message().contains("NUL"), "{}", e.message());
}

#[test]
fn the_sampler_is_send_and_sync() {
    fn shared<T: Send + Sync>(_: &T) {}
    shared(&Sampler::new().unwrap());
}

#[test]
fn status_codes_round_trip() {
    for code in -18..=-1 {
        let status = Status::from_code(code);
        assert_eq!(status as i32, code);
        assert!(!status.text().is_empty());
    }
    assert_eq!(Status::from_code(-17), Status::Partial);
    assert_eq!(Status::from_code(-18), Status::Exec);
    assert_eq!(Status::from_code(-1000), Status::Error);
}

#[test]
fn the_published_limits_are_the_ones_libkpc_enforces() {
    let s = Sampler::new().unwrap();
    let e = s.thread(["task-clock"; kpc::MAX_EVENTS + 1]).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    let between = format!("between 1 and {} events", kpc::MAX_EVENTS);
    assert!(e.message().contains(&between), "{}", e.message());
    let long = "x".repeat(kpc::EVENT_NAME_MAX + 1);
    let e = s.find_event(&long).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert!(
        e.message().contains(&kpc::EVENT_NAME_MAX.to_string()),
        "{}",
        e.message()
    );
}
