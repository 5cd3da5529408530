//! The same exact count with Criterion's own criterion_group! and default config, plots
//! on: Criterion 0.3 panics in its plots (criterion.rs #887). CTest
//! rust_binding_exact_count_default asserts that it does, i.e. that exact_count.rs's path
//! is still needed.
use criterion::{criterion_group, criterion_main, Criterion};
use kpc_criterion::HardwareCounter;
use std::time::Duration;

mod fresh_pages;

fn config() -> Criterion<HardwareCounter> {
    Criterion::default()
        .with_measurement(fresh_pages::page_faults())
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! { name = benches; config = config(); targets = fresh_pages::bench }
criterion_main!(benches);
