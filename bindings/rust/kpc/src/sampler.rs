//! Sampler: a counting session (backend, CPU, event database, counter ownership).

use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::ptr::{self, NonNull};

use crate::error::{check, Result, SamplerError, Status};
use crate::event::Event;
use crate::ffi;
use crate::thread::ThreadSampler;

/// Which backend a [`Sampler`] loads (`kp_backend_t`).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// `KPC_BACKEND` from the environment, else the platform's own.
    Auto,
    /// Apple's kperf and kperfdata frameworks, loaded at run time.
    Kperf,
    /// Linux perf_event_open.
    PerfEvent,
    /// Apple without root: the kernel's per-thread counts (cycles, instructions, their
    /// P/E-core split, task-clock).
    Recount,
}

/// Options for [`Sampler::with_options`]; `Default` is what [`Sampler::new`] uses.
/// Unset fields fall back to the environment (`KPC_BACKEND`, `KPC_KPERF_PATH`,
/// `KPC_KPERFDATA_PATH`), then to the platform default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SamplerOptions {
    /// Which backend to load; `None` is [`Backend::Auto`].
    pub backend: Option<Backend>,
    /// Path of the kperf framework binary (Apple).
    pub kperf_path: Option<String>,
    /// Path of the kperfdata framework binary (Apple).
    pub kperfdata_path: Option<String>,
}

/// A counting session: create one per process, then one [`ThreadSampler`] per thread
/// with [`Sampler::thread`].
///
/// Creating it loads the backend, identifies the CPU and builds the event database; on
/// Apple it also takes the hardware counters from the Power Manager and gives them back
/// when the session ends. Missing permission does not fail here (the event database stays
/// readable): [`Sampler::access`] says whether counting will work, and
/// [`Sampler::thread`] reports it.
///
/// `Send + Sync`: every libkpc sampler function may be called from any thread. A
/// [`ThreadSampler`] keeps the session alive, so the two may be dropped in any order.
pub struct Sampler {
    pub(crate) raw: NonNull<ffi::kp_sampler_t>,
}

// SAFETY: libkpc's sampler functions are thread-safe (kpc/sampler.h); only
// kp_sampler_free must not race, and Drop has exclusive access.
unsafe impl Send for Sampler {}
unsafe impl Sync for Sampler {}

impl Sampler {
    /// A session with the default options (`kp_sampler_new`).
    ///
    /// # Errors
    /// [`Status::InvalidArgument`] (bad `KPC_BACKEND` or a relative framework path in the
    /// environment), [`Status::Unsupported`], [`Status::LoadFailed`], [`Status::Layout`],
    /// [`Status::Framework`], [`Status::OutOfMemory`].
    pub fn new() -> Result<Sampler> {
        Self::create(ptr::null())
    }

    /// A session with explicit options; errors as [`Sampler::new`].
    pub fn with_options(options: &SamplerOptions) -> Result<Sampler> {
        let kperf = c_string_opt(options.kperf_path.as_deref(), "kperf_path")?;
        let kperfdata = c_string_opt(options.kperfdata_path.as_deref(), "kperfdata_path")?;
        let mut opts = ffi::kp_sampler_options_t {
            version: 0,
            backend: 0,
            kperf_path: ptr::null(),
            kperfdata_path: ptr::null(),
        };
        // SAFETY: fills the struct for the version this crate was written against.
        check(unsafe { ffi::kp_sampler_options_init(&mut opts, ffi::KP_SAMPLER_OPTIONS_VERSION) })?;
        opts.backend = match options.backend {
            None | Some(Backend::Auto) => 0,
            Some(Backend::Kperf) => 1,
            Some(Backend::PerfEvent) => 2,
            Some(Backend::Recount) => 3,
        };
        opts.kperf_path = kperf.as_ref().map_or(ptr::null(), |s| s.as_ptr());
        opts.kperfdata_path = kperfdata.as_ref().map_or(ptr::null(), |s| s.as_ptr());
        // kp_sampler_new copies the paths, so the CStrings may go after the call.
        Self::create(&opts)
    }

    fn create(opts: *const ffi::kp_sampler_options_t) -> Result<Sampler> {
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is a valid out pointer; `opts` is NULL or a filled struct whose
        // strings outlive the call.
        check(unsafe { ffi::kp_sampler_new(&mut raw, opts) })?;
        NonNull::new(raw).map(|raw| Sampler { raw }).ok_or_else(|| {
            SamplerError::new(
                Status::Error,
                "kp_sampler_new returned KP_OK without a sampler".into(),
            )
        })
    }

    /// Counters for `events` on the calling thread (`kp_thread_new`), not yet started.
    ///
    /// `events` are generic or native names (see [`Event`]), 1 to [`MAX_EVENTS`](crate::MAX_EVENTS) of them. Each
    /// [`ThreadSampler::sample`] returns `[u64; N]` in the same order.
    ///
    /// # Errors
    /// [`Status::InvalidArgument`] (no events, more than [`MAX_EVENTS`](crate::MAX_EVENTS), a name listed twice or
    /// longer than [`EVENT_NAME_MAX`](crate::EVENT_NAME_MAX) bytes, a NUL byte in a name), [`Status::UnknownEvent`],
    /// [`Status::Unavailable`] (not on this machine: the message names the event and why),
    /// [`Status::Conflict`], [`Status::PermissionDenied`] (the message says how to allow
    /// counting), [`Status::Busy`], [`Status::Unsupported`], [`Status::BadState`] (sampler
    /// released), [`Status::Kernel`], [`Status::Framework`], [`Status::OutOfMemory`].
    pub fn thread<S: AsRef<str>, const N: usize>(
        &self,
        events: [S; N],
    ) -> Result<ThreadSampler<N>> {
        let names = event_names(&events)?;
        let pointers: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let mut raw = ptr::null_mut();
        // SAFETY: `pointers` holds N valid C strings (copied by libkpc) for the call.
        check(unsafe { ffi::kp_thread_new(&mut raw, self.raw.as_ptr(), pointers.as_ptr(), N) })?;
        match NonNull::new(raw) {
            Some(raw) => Ok(ThreadSampler::from_raw(raw)),
            None => Err(SamplerError::new(
                Status::Error,
                "kp_thread_new returned KP_OK without a handle".into(),
            )),
        }
    }

    /// The backend in use; `None` for one this crate does not know yet (see
    /// [`Sampler::backend_name`]).
    pub fn backend(&self) -> Option<Backend> {
        // SAFETY: live sampler.
        match unsafe { ffi::kp_sampler_backend(self.raw.as_ptr()) } {
            1 => Some(Backend::Kperf),
            2 => Some(Backend::PerfEvent),
            3 => Some(Backend::Recount),
            _ => None,
        }
    }

    /// "kperf", "perf_event" or "recount".
    pub fn backend_name(&self) -> String {
        // SAFETY: live sampler; static string.
        ffi::owned(unsafe { ffi::kp_sampler_backend_name(self.raw.as_ptr()) }).unwrap_or_default()
    }

    /// Why this backend, for a user to read: e.g. "the platform's own (Linux)", or on a
    /// Mac without root "not root: counting cycles and instructions per thread without
    /// root; run with sudo for all events".
    pub fn backend_reason(&self) -> String {
        // SAFETY: live sampler; string owned by it, copied.
        ffi::owned(unsafe { ffi::kp_sampler_backend_reason(self.raw.as_ptr()) }).unwrap_or_default()
    }

    /// Machine-readable CPU identifier: the kpep database name on Apple ("as4"),
    /// `"<vendor>-<family>-<model>"` on Linux.
    pub fn cpu_id(&self) -> String {
        // SAFETY: live sampler; string owned by it, copied.
        ffi::owned(unsafe { ffi::kp_sampler_cpu_id(self.raw.as_ptr()) }).unwrap_or_default()
    }

    /// Human CPU name, e.g. "Apple M1".
    pub fn cpu_name(&self) -> String {
        // SAFETY: as cpu_id.
        ffi::owned(unsafe { ffi::kp_sampler_cpu_name(self.raw.as_ptr()) }).unwrap_or_default()
    }

    /// PMU description, or "none" when the machine has no usable hardware PMU.
    pub fn pmu_name(&self) -> String {
        // SAFETY: as cpu_id.
        ffi::owned(unsafe { ffi::kp_sampler_pmu_name(self.raw.as_ptr()) }).unwrap_or_default()
    }

    /// Number of hardware counters: (fixed, configurable); (0, 0) without a PMU.
    ///
    /// # Errors
    /// [`Status::Unsupported`] when the OS does not tell how many there are
    /// (`kp_sampler_counter_count` returns `KP_EUNSUPPORTED`; the message says why): the
    /// counts are then unknown, not zero.
    pub fn counter_counts(&self) -> Result<(u32, u32)> {
        counts_from(|fixed, configurable| {
            // SAFETY: valid out pointers, live sampler.
            unsafe { ffi::kp_sampler_counter_count(fixed, configurable, self.raw.as_ptr()) }
        })
    }

    /// `Ok(())` if this process may count hardware events now; otherwise the error
    /// [`Sampler::thread`] would give for one ([`Status::PermissionDenied`],
    /// [`Status::Busy`], [`Status::Unsupported`], [`Status::BadState`]).
    pub fn access(&self) -> Result<()> {
        // SAFETY: live sampler.
        check(unsafe { ffi::kp_sampler_access(self.raw.as_ptr()) })
    }

    /// Gives the hardware counters back while keeping the event database readable: stops
    /// this session's counting, restores Apple's force_all_ctrs, and makes every later
    /// start or sample fail with [`Status::BadState`]. Idempotent.
    ///
    /// # Errors
    /// [`Status::Kernel`] if the OS refused to restore a setting (the release still
    /// takes effect).
    pub fn release(&self) -> Result<()> {
        // SAFETY: live sampler.
        check(unsafe { ffi::kp_sampler_release(self.raw.as_ptr()) })
    }

    /// Every event of the database, available or not.
    pub fn events(&self) -> Vec<Event> {
        let s = self.raw.as_ptr();
        // SAFETY: live sampler; indices below the count give non-NULL events.
        let count = unsafe { ffi::kp_sampler_event_count(s) };
        (0..count)
            .map(|i| unsafe { ffi::kp_sampler_event_at(s, i) })
            .filter(|e| !e.is_null())
            .map(Event::copy)
            .collect()
    }

    /// Looks an event up by generic or native name. Finding it does not mean it can be
    /// counted: check [`Event::is_available`].
    ///
    /// # Errors
    /// [`Status::UnknownEvent`] (the message suggests close names),
    /// [`Status::InvalidArgument`] (longer than [`EVENT_NAME_MAX`](crate::EVENT_NAME_MAX) bytes, or a NUL byte),
    /// [`Status::OutOfMemory`].
    pub fn find_event(&self, name: &str) -> Result<Event> {
        let name = c_string(name, "event name")?;
        let mut e = ptr::null();
        // SAFETY: valid out pointer and C string; the event is copied at once.
        check(unsafe { ffi::kp_sampler_event_find(&mut e, self.raw.as_ptr(), name.as_ptr()) })?;
        Ok(Event::copy(e))
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        // SAFETY: owned handle, freed once; thread handles keep the session alive.
        unsafe { ffi::kp_sampler_free(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Sampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sampler")
            .field("backend", &self.backend_name())
            .field("cpu_id", &self.cpu_id())
            .finish()
    }
}

/// The event names as C strings, for a `kp_*_new` call.
/// The counts `read` writes, or its failure; apart so that a test can answer as a machine
/// whose counter count is unknown.
fn counts_from(read: impl FnOnce(&mut u32, &mut u32) -> c_int) -> Result<(u32, u32)> {
    let (mut fixed, mut configurable) = (0, 0);
    check(read(&mut fixed, &mut configurable))?;
    Ok((fixed, configurable))
}

pub(crate) fn event_names<S: AsRef<str>>(events: &[S]) -> Result<Vec<CString>> {
    events
        .iter()
        .map(|name| c_string(name.as_ref(), "event name"))
        .collect()
}

pub(crate) fn c_string(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|_| {
        SamplerError::new(
            Status::InvalidArgument,
            format!("{} {:?} contains a NUL byte: remove it", what, text),
        )
    })
}

fn c_string_opt(text: Option<&str>, what: &str) -> Result<Option<CString>> {
    text.map(|t| c_string(t, what)).transpose()
}

#[cfg(test)]
mod counter_count_tests {
    use super::*;

    /// KP_EUNSUPPORTED: unknown is an error, never a made-up (0, 0) that reads as "none".
    #[test]
    fn unknown_counter_counts_are_an_error() {
        let err = counts_from(|f, c| {
            *f = 0;
            *c = 0;
            Status::Unsupported as c_int
        })
        .unwrap_err();
        assert_eq!(err.status(), Status::Unsupported);
        let known = counts_from(|f, c| {
            *f = 2;
            *c = 8;
            0
        });
        assert_eq!(known.unwrap(), (2, 8));
    }
}
