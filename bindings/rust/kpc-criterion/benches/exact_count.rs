//! An exact count through kpc-criterion's path: kpc_criterion::criterion and its
//! criterion_group!, which keep Criterion's plots off. `cargo bench --bench exact_count`
//! (no --noplot) completes and reports N faults. CTest: rust_binding_exact_count.
use criterion::{criterion_main, Criterion};
use kpc_criterion::{criterion_group, HardwareCounter};
use std::time::Duration;

mod fresh_pages;

fn config() -> Criterion<HardwareCounter> {
    kpc_criterion::criterion(fresh_pages::page_faults())
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! { name = benches; config = config(); targets = fresh_pages::bench }
criterion_main!(benches);
