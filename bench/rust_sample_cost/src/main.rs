//! What a sample costs from Rust: `kpc::ThreadSampler::sample` next to the bare C
//! `kp_thread_sample`, on one thread, side by side in one run (docs/performance.md,
//! "Rust: the cost of a sample").
//!
//! Each round times, back to back and in alternating order, --reads calls of
//!
//!   C            kp_thread_sample in a C loop: kp_thread_calibrate(t, ..., rounds) makes
//!                2 x rounds back-to-back kp_thread_sample calls in C (and keeps a minimum,
//!                a few instructions), so its time / (2 x rounds) is the bare C cost
//!   FFI          a Rust loop calling kp_thread_sample through kpc::ffi (the least Rust can do)
//!   sample       ThreadSampler::sample(), which returns a new [u64; 3]
//!   sample_into  ThreadSampler::sample_into(&mut values)
//!
//! all on the same handle, timed with the thread's CPU time (other processes' turns on a
//! busy machine are not counted). It prints the median ns per call of each, the median
//! over rounds of each / C (paired per round, which cancels load that changes between
//! rounds) with its interquartile range, the absolute overhead per call (sample and
//! sample_into minus the FFI loop, and the FFI loop minus C, paired per round), and the
//! heap allocations made by the sample loops, counted by this program's global allocator:
//! they must be 0, else it exits 1.
//! Nothing is asserted on time.
//!
//! Run (from a CMake build tree; CTest's rust_sample_cost runs a short pass):
//!   KPC_LIB_DIR=<build>/src cargo run --release --offline --manifest-path bench/rust_sample_cost/Cargo.toml -- [--rounds 201] [--reads 1000]

use std::alloc::{GlobalAlloc, Layout, System};
use std::os::raw::{c_int, c_long};
use std::sync::atomic::{AtomicU64, Ordering};

use kpc::{Sampler, ThreadSampler};

const EVENTS: [&str; 3] = ["task-clock", "page-faults", "context-switches"];

/// The system allocator, counting allocations (a sample must make none).
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// struct timespec on Linux (time_t is a long there).
#[repr(C)]
struct Timespec {
    tv_sec: c_long,
    tv_nsec: c_long,
}

const CLOCK_THREAD_CPUTIME_ID: c_int = 3; // Linux

extern "C" {
    fn clock_gettime(clock: c_int, ts: *mut Timespec) -> c_int;
}

/// CPU time of the calling thread, in ns.
fn now_ns() -> u64 {
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out pointer; this clock exists on every Linux since 2.6.12.
    unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn main() {
    let (rounds, reads) = parse_args();
    let sampler = Sampler::new().unwrap_or_else(|e| fail(&format!("Sampler::new: {}", e)));
    let mut t = sampler
        .thread(EVENTS)
        .unwrap_or_else(|e| fail(&format!("thread({:?}): {}", EVENTS, e)));
    t.start().unwrap_or_else(|e| fail(&format!("start: {}", e)));

    let mut per_call: [Vec<f64>; 4] = Default::default();
    let mut allocations = 0;
    let mut checksum = 0u64;
    for round in 0..rounds {
        let mut order = [0, 1, 2, 3];
        if round % 2 == 1 {
            order.reverse();
        }
        for &m in &order {
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            let ns = match m {
                0 => c_loop(&t, reads),
                1 => ffi_loop(&t, reads, &mut checksum),
                2 => sample_loop(&t, reads, &mut checksum),
                _ => sample_into_loop(&t, reads, &mut checksum),
            };
            if m >= 2 {
                allocations += ALLOCATIONS.load(Ordering::Relaxed) - before;
            }
            per_call[m].push(ns);
        }
    }

    println!(
        "rust_sample_cost: {}, libkpc {}, {} events ({}), backend {}, {} rounds x {} calls",
        env!("KPC_BENCH_RUSTC_VERSION"),
        kpc::version(),
        EVENTS.len(),
        EVENTS.join(","),
        sampler.backend_name(),
        rounds,
        reads
    );
    println!(
        "{:<40} {:>9} {:>7} {:>13}",
        "method", "ns/call", "/ C", "round ratios"
    );
    let c = &per_call[0];
    let labels = [
        "C loop of kp_thread_sample (calibrate)",
        "Rust loop of kp_thread_sample (FFI)",
        "ThreadSampler::sample",
        "ThreadSampler::sample_into",
    ];
    for (m, label) in labels.iter().enumerate() {
        let ratios: Vec<f64> = per_call[m].iter().zip(c).map(|(v, c)| v / c).collect();
        if m == 0 {
            println!("{:<40} {:>9.1}", label, median(&per_call[m]));
        } else {
            println!(
                "{:<40} {:>9.1} {:>7.3} {:>6.3}-{:.3}",
                label,
                median(&per_call[m]),
                median(&ratios),
                quantile(&ratios, 0.25),
                quantile(&ratios, 0.75)
            );
        }
    }
    // Absolute costs, paired within each round: they stay meaningful when the C sample gets
    // cheap and every ratio to it grows.
    println!(
        "absolute overhead per call, ns (median over rounds of the paired difference; C sample {:.1} ns):",
        median(c)
    );
    for &(a, b) in &[(2, 1), (3, 1), (1, 0)] {
        let d: Vec<f64> = per_call[a].iter().zip(&per_call[b]).map(|(x, y)| x - y).collect();
        println!(
            "{:<80} {:>8.1} {:>8.1} to {:.1}",
            format!("{} - {}", labels[a], labels[b]),
            median(&d),
            quantile(&d, 0.25),
            quantile(&d, 0.75)
        );
    }
    println!(
        "allocations in {} sample and sample_into calls: {} (checksum {})",
        2 * rounds * reads,
        allocations,
        checksum % 10
    );
    if allocations != 0 {
        fail("the sample path allocated on the heap; it must not");
    }
}

/// `reads` samples in libkpc's own C loop; ns per sample.
fn c_loop(t: &ThreadSampler<3>, reads: usize) -> f64 {
    let pairs = (reads / 2).max(1) as u32;
    let start = now_ns();
    t.calibrate(pairs)
        .unwrap_or_else(|e| fail(&format!("calibrate: {}", e)));
    (now_ns() - start) as f64 / (2 * pairs) as f64
}

fn ffi_loop(t: &ThreadSampler<3>, reads: usize, checksum: &mut u64) -> f64 {
    let raw = t.as_ptr();
    let mut values = [0u64; 3];
    let start = now_ns();
    for _ in 0..reads {
        // SAFETY: the live handle of `t`, on its thread; `values` holds 3 elements.
        if unsafe { kpc::ffi::kp_thread_sample(raw, values.as_mut_ptr(), 3) } != 0 {
            fail("kp_thread_sample failed");
        }
    }
    let ns = (now_ns() - start) as f64 / reads as f64;
    *checksum = checksum.wrapping_add(values[0]);
    ns
}

fn sample_loop(t: &ThreadSampler<3>, reads: usize, checksum: &mut u64) -> f64 {
    let mut last = 0;
    let start = now_ns();
    for _ in 0..reads {
        match t.sample() {
            Ok(values) => last = values[0],
            Err(e) => fail(&format!("sample: {}", e)),
        }
    }
    let ns = (now_ns() - start) as f64 / reads as f64;
    *checksum = checksum.wrapping_add(last);
    ns
}

fn sample_into_loop(t: &ThreadSampler<3>, reads: usize, checksum: &mut u64) -> f64 {
    let mut values = [0u64; 3];
    let start = now_ns();
    for _ in 0..reads {
        if let Err(e) = t.sample_into(&mut values) {
            fail(&format!("sample_into: {}", e));
        }
    }
    let ns = (now_ns() - start) as f64 / reads as f64;
    *checksum = checksum.wrapping_add(values[0]);
    ns
}

fn parse_args() -> (usize, usize) {
    let (mut rounds, mut reads) = (201, 1000);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().and_then(|v| v.parse::<usize>().ok());
        match (flag.as_str(), value) {
            ("--rounds", Some(v)) if v >= 1 => rounds = v,
            ("--reads", Some(v)) if v >= 2 => reads = v,
            _ => fail("usage: rust_sample_cost [--rounds N>=1] [--reads N>=2]"),
        }
    }
    (rounds, reads)
}

fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    sorted[(q * (sorted.len() - 1) as f64 + 0.5) as usize]
}

fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

fn fail(message: &str) -> ! {
    eprintln!("rust_sample_cost: {}", message);
    std::process::exit(1)
}
