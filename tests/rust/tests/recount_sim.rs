//! The recount backend (macOS without root) through FFI, against the simulated libSystem of
//! tests/recount_sim. CTest (rust_recount_sim) sets KPC_BACKEND=recount, KPC_LIBSYSTEM_PATH
//! to librecount_sim.so and KPC_TEST_RCSIM_NOSELFCOUNTS to the variant without
//! thread_selfcounts.
//!
//! The simulator's model (tests/recount_sim/README.md): cycles = the thread's CPU ns × 3,
//! instructions = cycles × 2, a share RCSIM_P_SHARE (default 0.75) of both on P cores.
//! Another simulated machine: set its RCSIM_* variable and call rcsim_reset(), found with
//! dlsym in the library libkpc loads (the same instance). The environment and the
//! simulator are process-wide, so the tests take a lock.
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_long, c_void};
use std::ptr;
use std::sync::{Mutex, MutexGuard};
use std::thread;

use kpc_abi_tests::check::{c_string, expect_ok, expect_status};
use kpc_abi_tests::handles::{options, sample, thread as new_thread, try_sampler, try_thread};
use kpc_abi_tests::memory::spin;
use kpc_abi_tests::skip::skip;
use kpc_abi_tests::sys;

const CYCLES_PER_NS: f64 = 3.0;
const INSTRUCTIONS_PER_CYCLE: u64 = 2;

extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn clock_gettime(clock: c_int, ts: *mut [c_long; 2]) -> c_int;
}
const RTLD_NOW: c_int = 2;
const CLOCK_THREAD_CPUTIME_ID: c_int = 3;

static SERIAL: Mutex<()> = Mutex::new(());

fn thread_cpu_ns() -> u64 {
    let mut ts = [0 as c_long; 2];
    assert_eq!(
        unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) },
        0
    );
    ts[0] as u64 * 1_000_000_000 + ts[1] as u64
}

/// Spends at least `ns` of the calling thread's CPU time.
fn burn_cpu(ns: u64) {
    let end = thread_cpu_ns() + ns;
    while thread_cpu_ns() < end {
        spin(10_000);
    }
}

/// The simulator, locked for one test; dropping it restores the default machine.
struct Sim {
    reset: unsafe extern "C" fn(),
    saved: Vec<(String, Option<String>)>,
    _serial: MutexGuard<'static, ()>,
}

impl Sim {
    /// None (after recording a skip) unless CTest named the simulator.
    fn begin(test: &str) -> Option<Sim> {
        // Serialised before reading the environment: another test may have pointed
        // KPC_LIBSYSTEM_PATH at another simulator until its Sim drops.
        let serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
        let path = match std::env::var("KPC_LIBSYSTEM_PATH") {
            Ok(p) if std::env::var("KPC_BACKEND").as_deref() == Ok("recount") => p,
            _ => {
                skip(
                    test,
                    "needs KPC_BACKEND=recount and KPC_LIBSYSTEM_PATH naming librecount_sim.so; \
                     run it through `ctest -R rust_recount_sim`",
                );
                return None;
            }
        };
        let cpath = CString::new(path.clone()).unwrap();
        let reset = unsafe {
            let lib = dlopen(cpath.as_ptr(), RTLD_NOW);
            assert!(!lib.is_null(), "dlopen({}) failed", path);
            let f = dlsym(lib, b"rcsim_reset\0".as_ptr() as *const c_char);
            assert!(!f.is_null(), "{} does not export rcsim_reset", path);
            std::mem::transmute::<*mut c_void, unsafe extern "C" fn()>(f)
        };
        Some(Sim {
            reset,
            saved: Vec::new(),
            _serial: serial,
        })
    }

    /// Another simulated machine (or library) for the rest of this test.
    fn simulate(&mut self, name: &str, value: &str) {
        self.saved
            .push((name.to_string(), std::env::var(name).ok()));
        std::env::set_var(name, value);
        unsafe { (self.reset)() };
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        for (name, old) in self.saved.iter().rev() {
            match old {
                Some(v) => std::env::set_var(name, v),
                None => std::env::remove_var(name),
            }
        }
        unsafe { (self.reset)() };
    }
}

/// `Sim::begin`, or return from the test (skipped) when CTest did not name the simulator.
macro_rules! begin {
    ($test:expr) => {
        match Sim::begin($test) {
            Some(sim) => sim,
            None => return,
        }
    };
}

/// The sampler the environment selects, freed on drop.
struct Sampler(*mut sys::kp_sampler_t);
impl Sampler {
    fn from_env() -> Sampler {
        let mut s: *mut sys::kp_sampler_t = ptr::null_mut();
        expect_ok(
            unsafe { sys::kp_sampler_new(&mut s, ptr::null()) },
            "kp_sampler_new(NULL options) on the simulated libSystem",
        );
        Sampler(s)
    }
    fn event(&self, name: &str) -> (bool, String) {
        let c = CString::new(name).unwrap();
        let mut e: *const sys::kp_event_t = ptr::null();
        expect_ok(
            unsafe { sys::kp_sampler_event_find(&mut e, self.0, c.as_ptr()) },
            name,
        );
        unsafe {
            (
                sys::kp_event_is_available(e) != 0,
                c_string(sys::kp_event_unavailable_reason(e)).unwrap_or_default(),
            )
        }
    }
}
impl Drop for Sampler {
    fn drop(&mut self) {
        unsafe { sys::kp_sampler_free(self.0) };
    }
}

/// A started handle on the calling thread, freed on drop.
struct Thread(*mut sys::kp_thread_t);
impl Thread {
    fn new(s: &Sampler, events: &[&str]) -> Thread {
        let t = new_thread(s.0, events);
        expect_ok(unsafe { sys::kp_thread_start(t) }, "kp_thread_start");
        Thread(t)
    }
}
impl Drop for Thread {
    fn drop(&mut self) {
        unsafe { sys::kp_thread_free(self.0) };
    }
}

#[test]
fn the_environment_selects_recount_and_says_why() {
    let _sim = begin!("the_environment_selects_recount_and_says_why");
    let s = Sampler::from_env();
    unsafe {
        assert_eq!(sys::kp_sampler_backend(s.0), 3);
        assert_eq!(sys::kp_sampler_backend(s.0), sys::KP_BACKEND_RECOUNT as i32);
        assert_eq!(
            c_string(sys::kp_sampler_backend_name(s.0)).as_deref(),
            Some("recount")
        );
        assert_eq!(
            c_string(sys::kp_sampler_backend_reason(s.0)).as_deref(),
            Some("named by KPC_BACKEND=recount")
        );
        assert!(sys::kp_sampler_backend_reason(ptr::null()).is_null());
        expect_ok(
            sys::kp_sampler_access(s.0),
            "kp_sampler_access on recount (no root needed)",
        );
    }
    // Named in the options, the reason says so.
    let named = try_sampler(&options(sys::KP_BACKEND_RECOUNT)).expect("recount in the options");
    let reason = c_string(unsafe { sys::kp_sampler_backend_reason(named) }).unwrap();
    unsafe { sys::kp_sampler_free(named) };
    assert!(reason.contains("named by the caller"), "{}", reason);
}

#[test]
fn cycles_are_three_times_the_threads_cpu_time() {
    let _sim = begin!("cycles_are_three_times_the_threads_cpu_time");
    let s = Sampler::from_env();
    let t = Thread::new(&s, &["cycles", "instructions"]);
    let cpu0 = thread_cpu_ns();
    let before = sample(t.0);
    burn_cpu(30_000_000);
    let after = sample(t.0);
    let cpu = thread_cpu_ns() - cpu0;
    for v in [&before, &after] {
        assert_eq!(
            v[1],
            INSTRUCTIONS_PER_CYCLE * v[0],
            "instructions = 2 × cycles: {:?}",
            v
        );
    }
    let cycles = (after[0] - before[0]) as f64;
    let expected = CYCLES_PER_NS * cpu as f64;
    // The samples lie inside the measured interval: a little less, never more.
    assert!(
        cycles <= expected * 1.001 && cycles >= expected * 0.95,
        "{} cycles over {} ns of CPU time; the model says {}",
        cycles,
        cpu,
        expected
    );
}

#[test]
fn performance_and_efficiency_add_up_to_the_total() {
    let mut sim = begin!("performance_and_efficiency_add_up_to_the_total");
    sim.simulate("RCSIM_P_SHARE", "0.7");
    let s = Sampler::from_env();
    let t = Thread::new(
        &s,
        &[
            "cycles",
            "p-cycles",
            "e-cycles",
            "instructions",
            "p-instructions",
            "e-instructions",
        ],
    );
    burn_cpu(20_000_000);
    let v = sample(t.0);
    assert_eq!(v[1] + v[2], v[0], "p-cycles + e-cycles = cycles: {:?}", v);
    assert_eq!(
        v[4] + v[5],
        v[3],
        "p + e instructions = instructions: {:?}",
        v
    );
    for (p, total) in [(v[1], v[0]), (v[4], v[3])] {
        let share = p as f64 / total as f64;
        assert!(
            (share - 0.7).abs() < 0.01,
            "P share {} (RCSIM_P_SHARE 0.7): {:?}",
            share,
            v
        );
    }
}

#[test]
fn one_perf_level_puts_everything_on_p() {
    let mut sim = begin!("one_perf_level_puts_everything_on_p");
    sim.simulate("RCSIM_PERF_LEVELS", "1");
    let s = Sampler::from_env();
    let t = Thread::new(&s, &["cycles", "p-cycles", "e-cycles", "e-instructions"]);
    burn_cpu(10_000_000);
    let v = sample(t.0);
    assert!(
        v[0] > 0 && v[1] == v[0] && v[2] == 0 && v[3] == 0,
        "{:?}",
        v
    );
}

#[test]
fn a_virtual_machine_is_unsupported_and_says_why() {
    let mut sim = begin!("a_virtual_machine_is_unsupported_and_says_why");
    sim.simulate("RCSIM_VM", "1");
    let s = Sampler::from_env();
    let msg = expect_status(
        unsafe { sys::kp_sampler_access(s.0) },
        sys::KP_EUNSUPPORTED,
        "kp_sampler_access in a macOS VM",
    );
    assert_eq!(sys::KP_EUNSUPPORTED, -7);
    assert!(msg.contains("virtual machine"), "{}", msg);
    let rc = try_thread(s.0, &["cycles"]).map(|t| unsafe { sys::kp_thread_free(t) });
    assert_eq!(rc.err().map(|e| e.0), Some(sys::KP_EUNSUPPORTED));
}

#[test]
fn a_libsystem_without_thread_selfcounts_is_unsupported() {
    let mut sim = begin!("a_libsystem_without_thread_selfcounts_is_unsupported");
    let path = match std::env::var("KPC_TEST_RCSIM_NOSELFCOUNTS") {
        Ok(p) => p,
        Err(_) => {
            skip(
                "a_libsystem_without_thread_selfcounts_is_unsupported",
                "KPC_TEST_RCSIM_NOSELFCOUNTS does not name librecount_sim_noselfcounts.so",
            );
            return;
        }
    };
    sim.simulate("KPC_LIBSYSTEM_PATH", &path);
    let s = Sampler::from_env();
    let msg = expect_status(
        unsafe { sys::kp_sampler_access(s.0) },
        sys::KP_EUNSUPPORTED,
        "kp_sampler_access without thread_selfcounts",
    );
    assert!(msg.contains("thread_selfcounts"), "{}", msg);
}

#[test]
fn other_events_need_root_and_kperf() {
    let _sim = begin!("other_events_need_root_and_kperf");
    let s = Sampler::from_env();
    assert!(!s.event("branches").0);
    let err = try_thread(s.0, &["cycles", "branches"])
        .map(|t| unsafe { sys::kp_thread_free(t) })
        .expect_err("branches on recount");
    assert_eq!(err.0, sys::KP_EUNAVAILABLE);
    assert_eq!(sys::KP_EUNAVAILABLE, -9);
    assert!(
        err.1.contains("root") && err.1.contains("kperf"),
        "{}",
        err.1
    );
}

#[test]
fn macos_12_has_totals_only() {
    let mut sim = begin!("macos_12_has_totals_only");
    sim.simulate("RCSIM_MACOS", "12.6");
    let s = Sampler::from_env();
    for name in ["p-cycles", "e-instructions"] {
        let (available, reason) = s.event(name);
        assert!(
            !available && reason.contains("13.0"),
            "{}: {}",
            name,
            reason
        );
    }
    let t = Thread::new(&s, &["cycles", "instructions"]);
    burn_cpu(5_000_000);
    let v = sample(t.0);
    assert!(v[0] > 0 && v[1] == INSTRUCTIONS_PER_CYCLE * v[0], "{:?}", v);
    let err = try_thread(s.0, &["cycles", "p-cycles"])
        .map(|t| unsafe { sys::kp_thread_free(t) })
        .expect_err("p-cycles on macOS 12.6");
    assert_eq!(err.0, sys::KP_EUNAVAILABLE, "{}", err.1);
}

#[test]
fn threads_count_in_isolation() {
    let _sim = begin!("threads_count_in_isolation");
    let s = Sampler::from_env();
    let mine = Thread::new(&s, &["cycles"]);
    let before = sample(mine.0)[0];
    let sampler = kpc_abi_tests::handles::SendPtr(s.0);
    let (busy, cpu) = thread::spawn(move || {
        let t = new_thread(sampler.get(), &["cycles"]);
        expect_ok(unsafe { sys::kp_thread_start(t) }, "kp_thread_start");
        let a = sample(t)[0];
        let cpu0 = thread_cpu_ns();
        burn_cpu(40_000_000);
        let cpu = thread_cpu_ns() - cpu0;
        let b = sample(t)[0];
        unsafe { sys::kp_thread_free(t) };
        (b - a, cpu)
    })
    .join()
    .unwrap(); // this thread waits meanwhile
    let idle = sample(mine.0)[0] - before;
    assert!(
        busy as f64 >= CYCLES_PER_NS * cpu as f64 * 0.9,
        "{} cycles for {} ns",
        busy,
        cpu
    );
    assert!(
        idle < busy / 10,
        "the waiting thread counted {} cycles, the busy one {}",
        idle,
        busy
    );
}
