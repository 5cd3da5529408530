//! Shared by the integration tests of both crates (kpc-criterion includes it by path).
#![allow(dead_code)]

/// tests/rust's skip protocol (cargo's harness has no "skipped" result): a test that cannot
/// run here records why in $KPC_SKIP_LOG and returns, and tests/rust/run_cargo_test.py, which
/// CTest runs these tests with, reports it skipped, never passed.
#[path = "../../../../../tests/rust/src/skip.rs"]
mod skip;
#[allow(unused_imports)] // not every test file skips
pub use skip::skip;

/// Maps `pages` fresh anonymous pages, writes one byte to each (the first write to a page
/// faults it in) and unmaps them: `pages` page faults.
pub fn touch_fresh_pages(pages: usize) {
    // SAFETY: a private anonymous mapping of our own, written within its bounds and
    // unmapped once.
    unsafe {
        let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
        let len = pages * page;
        let region = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(region, libc::MAP_FAILED, "mmap of {} bytes failed", len);
        for i in 0..pages {
            std::ptr::write_volatile((region as *mut u8).add(i * page), 1);
        }
        libc::munmap(region, len);
    }
}

/// Whether a hardware event's error is the honest "this machine or process cannot count
/// it" kind, with a message naming the cause.
pub fn is_cannot_count_here(e: &kpc::SamplerError) -> bool {
    use kpc::Status::*;
    matches!(
        e.status(),
        Unavailable | Unsupported | PermissionDenied | Busy
    ) && !e.message().is_empty()
}

/// A sampler for the software events, which exist only on perf_event: under another
/// backend the calling test records a skip and gets `None`.
pub fn software_sampler(test: &str) -> Option<kpc::Sampler> {
    let s = kpc::Sampler::new().expect("Sampler::new");
    if s.backend() != Some(kpc::Backend::PerfEvent) {
        skip(
            test,
            "page-faults and task-clock are perf_event (Linux) events",
        );
        return None;
    }
    Some(s)
}
