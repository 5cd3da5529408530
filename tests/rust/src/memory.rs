//! Touching fresh pages, to make a thread take a known number of page faults.
//!
//! The pages come from their own anonymous mapping with transparent huge pages turned off,
//! so each page touched is one fault on the touching thread (a huge page would serve 512
//! pages with one fault).

pub const PAGE: usize = 4096;

#[cfg(target_os = "linux")]
mod imp {
    use std::os::raw::{c_int, c_long, c_void};
    use std::ptr;

    extern "C" {
        fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: c_int,
            flags: c_int,
            fd: c_int,
            off: c_long,
        ) -> *mut c_void;
        fn munmap(addr: *mut c_void, len: usize) -> c_int;
        fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }
    const PROT_READ: c_int = 1;
    const PROT_WRITE: c_int = 2;
    const MAP_PRIVATE: c_int = 0x02;
    const MAP_ANONYMOUS: c_int = 0x20;
    const MADV_NOHUGEPAGE: c_int = 15;

    /// Writes one byte to each of `pages` fresh pages; returns their sum (always 0) so the
    /// writes are not optimised away.
    pub fn touch_fresh_pages(pages: usize) -> u64 {
        let len = pages * super::PAGE;
        unsafe {
            let base = mmap(
                ptr::null_mut(),
                len,
                PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS,
                -1,
                0,
            );
            assert!(base as isize != -1, "mmap of {} bytes failed", len);
            // Without this, a THP "always" kernel could back the range with huge pages.
            madvise(base, len, MADV_NOHUGEPAGE);
            let bytes = base as *mut u8;
            for i in 0..pages {
                ptr::write_volatile(bytes.add(i * super::PAGE), 1);
            }
            let mut sum = 0u64;
            for i in 0..pages {
                sum += ptr::read_volatile(bytes.add(i * super::PAGE)) as u64 - 1;
            }
            munmap(base, len);
            sum
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    /// Portable fallback: a fresh heap block, one write per page.
    pub fn touch_fresh_pages(pages: usize) -> u64 {
        let mut v: Vec<u8> = Vec::with_capacity(pages * super::PAGE);
        let p = v.as_mut_ptr();
        let mut sum = 0u64;
        unsafe {
            for i in 0..pages {
                std::ptr::write_volatile(p.add(i * super::PAGE), 1);
            }
            for i in 0..pages {
                sum += std::ptr::read_volatile(p.add(i * super::PAGE)) as u64 - 1;
            }
        }
        sum
    }
}

pub use imp::touch_fresh_pages;

/// Some CPU work that touches no new memory, as a result that depends on every step.
pub fn spin(iterations: u64) -> u64 {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..iterations {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x = x.wrapping_add(i);
    }
    unsafe { std::ptr::read_volatile(&x) }
}
