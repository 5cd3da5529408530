//! Steering the kperf simulator (tests/kperf_sim/kpsim.h) from Rust.
//!
//! The simulator libraries are opened with dlopen by the very paths libkpc is given, so
//! the dynamic loader hands both the same instance and these controls act on the state
//! libkpc drives. The kpsim_* functions are test-only, not libkpc's ABI, so they are
//! declared here by hand rather than generated.
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::{Mutex, MutexGuard};

extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}
const RTLD_NOW: c_int = 2;

/// kpsim_kernel_state from kpsim.h.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct KernelState {
    pub counting: u32,
    pub thread_counting: u32,
    pub force_all_ctrs: c_int,
    pub force_owner: c_int,
    pub config_words: u32,
    pub config: [u64; 8],
    pub applied_config_words: u32,
    pub thread_buffers: u32,
    pub calls: u64,
}

/// The controls the Rust tests use.
pub struct Sim {
    pub kperf_path: CString,
    pub kperfdata_path: CString,
    reset: unsafe extern "C" fn(),
    get_state: unsafe extern "C" fn(*mut KernelState),
    set_root: unsafe extern "C" fn(c_int),
    set_pmu_busy: unsafe extern "C" fn(c_int),
    set_force_held_elsewhere: unsafe extern "C" fn(c_int),
    fail: unsafe extern "C" fn(*const c_char, c_int, c_int) -> c_int,
    data_reset: unsafe extern "C" fn(),
    data_fail: unsafe extern "C" fn(*const c_char, c_int, c_int) -> c_int,
    data_live_dbs: unsafe extern "C" fn() -> usize,
    data_live_configs: unsafe extern "C" fn() -> usize,
}

/// The simulator's state is process-wide: tests that use it run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

unsafe fn open(path: &CStr) -> *mut c_void {
    let h = dlopen(path.as_ptr(), RTLD_NOW);
    if h.is_null() {
        panic!("dlopen({:?}): {:?}", path, CStr::from_ptr(dlerror()));
    }
    h
}

unsafe fn symbol(lib: *mut c_void, name: &str) -> *mut c_void {
    let c = CString::new(name).unwrap();
    let p = dlsym(lib, c.as_ptr());
    assert!(!p.is_null(), "the simulator does not export {}", name);
    p
}

macro_rules! sym {
    ($lib:expr, $name:expr) => {
        std::mem::transmute(symbol($lib, $name))
    };
}

impl Sim {
    /// The simulator named by KPC_KPERF_PATH / KPC_KPERFDATA_PATH, or Err(reason) when
    /// they are not set (the test is then not running under ctest -R rust_kperf_sim).
    pub fn from_env() -> Result<Sim, String> {
        let kperf = std::env::var("KPC_KPERF_PATH");
        let kperfdata = std::env::var("KPC_KPERFDATA_PATH");
        let (kperf, kperfdata) = match (kperf, kperfdata) {
            (Ok(a), Ok(b)) => (a, b),
            _ => {
                return Err(
                    "KPC_KPERF_PATH / KPC_KPERFDATA_PATH do not name the simulator \
                            libraries; run this through `ctest -R rust_kperf_sim`"
                        .to_string(),
                )
            }
        };
        let kperf_path = CString::new(kperf).unwrap();
        let kperfdata_path = CString::new(kperfdata).unwrap();
        unsafe {
            let k = open(&kperf_path);
            let d = open(&kperfdata_path);
            Ok(Sim {
                reset: sym!(k, "kpsim_reset"),
                get_state: sym!(k, "kpsim_kernel_get_state"),
                set_root: sym!(k, "kpsim_set_root"),
                set_pmu_busy: sym!(k, "kpsim_set_pmu_busy"),
                set_force_held_elsewhere: sym!(k, "kpsim_set_force_held_elsewhere"),
                fail: sym!(k, "kpsim_fail"),
                data_reset: sym!(d, "kpsim_data_reset"),
                data_fail: sym!(d, "kpsim_data_fail"),
                data_live_dbs: sym!(d, "kpsim_data_live_dbs"),
                data_live_configs: sym!(d, "kpsim_data_live_configs"),
                kperf_path,
                kperfdata_path,
            })
        }
    }

    /// Takes the process-wide simulator lock and resets both libraries to boot state.
    pub fn begin(&self) -> MutexGuard<'static, ()> {
        let guard = SERIAL
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.reset();
        guard
    }

    /// Boot state again (faults, permissions, owners), within a test that holds the lock.
    pub fn reset(&self) {
        unsafe {
            (self.reset)();
            (self.data_reset)();
        }
    }

    pub fn state(&self) -> KernelState {
        let mut s = KernelState::default();
        unsafe { (self.get_state)(&mut s) };
        s
    }
    pub fn set_root(&self, root: bool) {
        unsafe { (self.set_root)(root as c_int) }
    }
    pub fn set_pmu_busy(&self, busy: bool) {
        unsafe { (self.set_pmu_busy)(busy as c_int) }
    }
    pub fn set_force_held_elsewhere(&self, held: bool) {
        unsafe { (self.set_force_held_elsewhere)(held as c_int) }
    }
    /// The nth next call of a kpc_*/kperf_* function fails with errno `err`.
    pub fn fail(&self, symbol: &str, nth: c_int, err: c_int) {
        let c = CString::new(symbol).unwrap();
        assert_eq!(
            unsafe { (self.fail)(c.as_ptr(), nth, err) },
            0,
            "kpsim_fail({})",
            symbol
        );
    }
    /// The nth next call of a kpep_* function returns kpep error `code`.
    pub fn data_fail(&self, symbol: &str, nth: c_int, code: c_int) {
        let c = CString::new(symbol).unwrap();
        assert_eq!(
            unsafe { (self.data_fail)(c.as_ptr(), nth, code) },
            0,
            "kpsim_data_fail({})",
            symbol
        );
    }
    /// kpep databases and configurations created and not yet freed.
    pub fn live_objects(&self) -> (usize, usize) {
        unsafe { ((self.data_live_dbs)(), (self.data_live_configs)()) }
    }
}
