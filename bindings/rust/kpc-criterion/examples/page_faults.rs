//! Counts the page faults of touching N fresh pages per iteration with Criterion: about N.
//! Run: cargo run --release --example page_faults -- --bench   (KPC_PAGES=N)
use criterion::{criterion_main, Criterion};
use kpc_criterion::{criterion_group, HardwareCounter};
use std::time::Duration;

fn pages() -> usize {
    std::env::var("KPC_PAGES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64)
}

/// Maps n fresh pages, writes to each (its first write faults it in), unmaps them.
fn touch_fresh_pages(n: usize) {
    unsafe {
        let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        let p = libc::mmap(
            std::ptr::null_mut(),
            n * page,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            -1,
            0,
        );
        assert_ne!(p, libc::MAP_FAILED);
        for i in 0..n {
            std::ptr::write_volatile((p as *mut u8).add(i * page), 1);
        }
        libc::munmap(p, n * page);
    }
}

fn bench(c: &mut Criterion<HardwareCounter>) {
    let n = pages();
    c.bench_function(&format!("touch {} fresh pages", n), |b| {
        b.iter(|| touch_fresh_pages(n))
    });
}

fn page_fault_counter() -> Criterion<HardwareCounter> {
    let counter = HardwareCounter::custom("page-faults").unwrap_or_else(|e| {
        eprintln!("cannot count page faults: {}", e); // the cause and the fix
        std::process::exit(1)
    });
    kpc_criterion::criterion(counter) // no plots: they panic when every sample is equal
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! { name = benches; config = page_fault_counter(); targets = bench }
criterion_main!(benches);
