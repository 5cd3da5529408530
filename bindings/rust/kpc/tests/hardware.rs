//! Hardware events (instructions, cycles) where the machine has a PMU the process may use;
//! elsewhere they must fail with an error that says why. Which of the two is decided by a
//! direct perf_event_open probe on Linux, not by libkpc. A file of its own, so that CTest
//! reports it skipped on such machines while the software-event tests report passed.
mod common;

use common::{is_cannot_count_here, skip};
use kpc::Sampler;

/// Hardware events either count, or fail with an error that says why: never a silent 0.
#[test]
fn hardware_events_count_or_say_why_not() {
    let s = Sampler::new().unwrap();
    match s.thread(["instructions", "cycles"]) {
        Ok(mut t) => {
            t.start().unwrap();
            let before = t.sample().unwrap();
            let n = 100_000u64;
            // A volatile read: the compiler cannot fold the loop into a constant.
            let sum: u64 = (0..unsafe { std::ptr::read_volatile(&n) }).sum();
            assert!(sum > 0);
            let after = t.sample().unwrap();
            assert!(
                after[0] - before[0] >= 100_000,
                "instructions {:?} -> {:?}",
                before,
                after
            );
            assert!(after[1] > before[1], "cycles {:?} -> {:?}", before, after);
            // For the emulated-PMU guest (tests/pmu/guest/rust_hardware.sh), which checks
            // that this branch ran and that cycles = 2^N x instructions there.
            println!(
                "counted: {} instructions, {} cycles",
                after[0] - before[0],
                after[1] - before[1]
            );
        }
        Err(e) => {
            // Where the kernel counts instructions for this thread, libkpc must too: its
            // error is then a failure, not a reason to skip.
            if common::pmu_counts_instructions().is_ok() {
                panic!("perf_event_open counts instructions here, yet libkpc refused: {}", e);
            }
            assert!(is_cannot_count_here(&e), "unexpected error: {}", e);
            skip("hardware_events_count_or_say_why_not", &e.to_string());
        }
    }
}
