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

/// Whether this thread may count hardware instructions, asked of the kernel directly with
/// perf_event_open (user space only), not of libkpc: a test must not decide to skip from
/// the library it tests.
#[cfg(target_os = "linux")]
#[allow(dead_code)] // not every test file probes
pub fn pmu_counts_instructions() -> Result<(), String> {
    // perf_event_attr as the kernel's first version (PERF_ATTR_SIZE_VER0, 64 bytes).
    #[repr(C)]
    #[derive(Default)]
    struct Attr {
        kind: u32,
        size: u32,
        config: u64,
        sample_period: u64,
        sample_type: u64,
        read_format: u64,
        flags: u64, // bit 0 disabled, 5 exclude_kernel, 6 exclude_hv
        wakeup_events: u32,
        bp_type: u32,
        config1: u64,
    }
    let attr = Attr {
        kind: 0,   // PERF_TYPE_HARDWARE
        config: 1, // PERF_COUNT_HW_INSTRUCTIONS
        flags: 1 | 1 << 5 | 1 << 6,
        size: std::mem::size_of::<Attr>() as u32,
        ..Default::default()
    };
    let fd =
        unsafe { libc::syscall(libc::SYS_perf_event_open, &attr as *const Attr, 0, -1, -1, 0u64) };
    if fd < 0 {
        return Err(format!(
            "perf_event_open(instructions): {}",
            std::io::Error::last_os_error()
        ));
    }
    unsafe { libc::close(fd as libc::c_int) };
    Ok(())
}

/// Elsewhere than Linux there is no such probe: the tests go by libkpc's answer there.
#[cfg(not(target_os = "linux"))]
#[allow(dead_code)]
pub fn pmu_counts_instructions() -> Result<(), String> {
    Err("no perf_event_open probe on this OS".to_string())
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
