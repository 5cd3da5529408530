//! The hardware constructors, in a file of their own so that CTest reports them skipped on
//! a machine without a usable PMU while the other tests report passed.
#[path = "../../kpc/tests/common/mod.rs"]
mod common;

use common::{is_cannot_count_here, skip};
use criterion::black_box;
use criterion::measurement::Measurement;
use kpc_criterion::HardwareCounter;

/// The four named constructors count, or return an error that says why (no PMU, no
/// permission): never a panic and never a silent 0.
#[test]
fn hardware_constructors_count_or_say_why_not() {
    let constructors: [(&str, fn() -> Result<HardwareCounter, kpc::SamplerError>); 4] = [
        ("instructions", HardwareCounter::instructions),
        ("cycles", HardwareCounter::cycles),
        ("branch-misses", HardwareCounter::branch_mispredictions),
        ("l1d-load-misses", HardwareCounter::l1d_cache_misses),
    ];
    let mut reasons = Vec::new();
    for (name, make) in constructors {
        match make() {
            Ok(m) => {
                assert_eq!(m.event().name, name);
                let start = m.start();
                let mut v = vec![0u64; 1 << 16];
                for (i, x) in v.iter_mut().enumerate() {
                    *x = black_box(i as u64) * 7;
                }
                black_box(&v);
                let counted = m.end(start);
                if name == "instructions" || name == "cycles" {
                    assert!(counted > 0, "{} counted 0", name);
                }
            }
            Err(e) => {
                // Where the kernel counts instructions for this thread (a direct probe, not
                // libkpc), instructions and cycles must count; other events may be missing
                // from a PMU that has those (QEMU's has only the two).
                if (name == "instructions" || name == "cycles")
                    && common::pmu_counts_instructions().is_ok()
                {
                    panic!("perf_event_open counts instructions here, yet {}: {}", name, e);
                }
                assert!(is_cannot_count_here(&e), "{}: unexpected error {}", name, e);
                reasons.push(format!("{}: {}", name, e));
            }
        }
    }
    if !reasons.is_empty() && common::pmu_counts_instructions().is_ok() {
        // instructions and cycles counted: the events this PMU lacks are reported, not skipped.
        println!("not counted here: {}", reasons.join("; "));
    } else if !reasons.is_empty() {
        skip(
            "hardware_constructors_count_or_say_why_not",
            &reasons.join("; "),
        );
    }
}
