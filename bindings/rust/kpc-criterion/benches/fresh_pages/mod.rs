//! What both exact_count benches measure: the page faults of touching KPC_PAGES (default 16)
//! fresh pages per iteration, exactly that many in every sample, so every sample is equal.
use criterion::Criterion;
use kpc_criterion::HardwareCounter;

#[path = "../../../kpc/tests/common/mod.rs"]
mod common;

fn pages() -> usize {
    std::env::var("KPC_PAGES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(16)
}

/// The benchmark; its id does not name N, so a second run compares with the first.
pub fn bench(c: &mut Criterion<HardwareCounter>) {
    let n = pages();
    c.bench_function("fresh pages", |b| b.iter(|| common::touch_fresh_pages(n)));
}

/// Counts page faults, or exits with libkpc's reason (page-faults is a Linux event).
pub fn page_faults() -> HardwareCounter {
    HardwareCounter::custom("page-faults").unwrap_or_else(|e| {
        eprintln!("cannot count page faults: {}", e);
        std::process::exit(1)
    })
}
