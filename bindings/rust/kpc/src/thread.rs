//! ThreadSampler: N events counted on the thread that created it.

use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::error::{check, Result};
use crate::event::Event;
use crate::ffi;

/// N events counted on the thread that created it (`kp_thread_t`), made by
/// [`crate::Sampler::thread`].
///
/// [`start`](Self::start) it, take [`sample`](Self::sample)s and subtract them: values are
/// running totals (never decreasing) of what this thread did while started.
/// [`stop`](Self::stop) pauses them and `start` resumes.
///
/// **Thread rule.** The counters count only the OS thread that created them and must be
/// used on it, so the type is neither `Send` nor `Sync`: the compiler keeps it on its
/// thread. Make one per thread.
///
/// **Cost.** [`sample`](Self::sample) is one `kp_thread_sample` call into a stack array:
/// it allocates nothing (bench/rust_sample_cost measures it against C).
///
/// Dropping it stops counting and frees the handle. It keeps its sampler's session alive,
/// so it may outlive the [`crate::Sampler`] it came from.
pub struct ThreadSampler<const N: usize> {
    raw: NonNull<ffi::kp_thread_t>,
    /// A raw-pointer marker: not `Send`, not `Sync`.
    _on_its_thread: PhantomData<*mut ()>,
}

/// [`ThreadSampler::sample_full`]: running totals plus whether each event ran the whole
/// time it was enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FullSample<const N: usize> {
    /// Running totals, in event order (as [`ThreadSampler::sample`]).
    pub values: [u64; N],
    /// Per event: `false` when the kernel multiplexed it, so its value covers only
    /// `time_running_ns` of `time_enabled_ns`.
    pub complete: [bool; N],
    /// Nanoseconds the events were enabled; 0 when the backend does not measure it.
    pub time_enabled_ns: u64,
    /// Nanoseconds they were on a counter; 0 likewise.
    pub time_running_ns: u64,
}

impl<const N: usize> ThreadSampler<N> {
    pub(crate) fn from_raw(raw: NonNull<ffi::kp_thread_t>) -> Self {
        ThreadSampler {
            raw,
            _on_its_thread: PhantomData,
        }
    }

    /// Starts (or resumes) counting. Does nothing if already started.
    ///
    /// # Errors
    /// [`BadState`](crate::Status::BadState) (sampler released),
    /// [`Busy`](crate::Status::Busy) (Apple: another set of events is counting, or another
    /// tool holds the counters), [`PermissionDenied`](crate::Status::PermissionDenied),
    /// [`Unavailable`](crate::Status::Unavailable) (Apple: the kernel refused an event),
    /// [`Kernel`](crate::Status::Kernel).
    pub fn start(&mut self) -> Result<()> {
        // SAFETY: live handle, on its thread (the type cannot leave it).
        check(unsafe { ffi::kp_thread_start(self.raw.as_ptr()) })
    }

    /// Stops (pauses) counting; the totals stay readable. Does nothing if stopped.
    ///
    /// # Errors
    /// [`Kernel`](crate::Status::Kernel).
    pub fn stop(&mut self) -> Result<()> {
        // SAFETY: as start.
        check(unsafe { ffi::kp_thread_stop(self.raw.as_ptr()) })
    }

    /// Whether counting is started.
    pub fn is_running(&self) -> bool {
        // SAFETY: live handle.
        unsafe { ffi::kp_thread_is_running(self.raw.as_ptr()) == 1 }
    }

    /// The running totals, in the order the events were given. Allocates nothing.
    ///
    /// # Errors
    /// [`BadState`](crate::Status::BadState) (never started, or sampler released),
    /// [`Kernel`](crate::Status::Kernel); [`Partial`](crate::Status::Partial) when the
    /// kernel multiplexed the handle's events: the values are partial (use
    /// [`sample_full`](Self::sample_full) for the scaling times).
    #[inline]
    pub fn sample(&self) -> Result<[u64; N]> {
        let mut values = [0u64; N];
        self.sample_into(&mut values)?;
        Ok(values)
    }

    /// [`sample`](Self::sample) into an array of the caller's. On
    /// [`Partial`](crate::Status::Partial) the partial values are written; on any other
    /// failure `values` is unspecified.
    #[inline]
    pub fn sample_into(&self, values: &mut [u64; N]) -> Result<()> {
        // SAFETY: live handle on its thread; `values` holds exactly N elements.
        check(unsafe { ffi::kp_thread_sample(self.raw.as_ptr(), values.as_mut_ptr(), N) })
    }

    /// [`sample`](Self::sample) plus, per event, whether it ran the whole time, and the
    /// enabled and running times. Allocates nothing. Errors as `sample`, except that
    /// multiplexed events are not [`Partial`](crate::Status::Partial) here: `complete` and
    /// the times say so.
    pub fn sample_full(&self) -> Result<FullSample<N>> {
        let mut values = [0u64; N];
        let mut complete = [0u8; N];
        let (mut enabled, mut running) = (0u64, 0u64);
        // SAFETY: live handle on its thread; both arrays hold N elements.
        check(unsafe {
            ffi::kp_thread_sample_full(
                self.raw.as_ptr(),
                values.as_mut_ptr(),
                complete.as_mut_ptr(),
                N,
                &mut enabled,
                &mut running,
            )
        })?;
        Ok(FullSample {
            values,
            complete: complete.map(|c| c != 0),
            time_enabled_ns: enabled,
            time_running_ns: running,
        })
    }

    /// What an empty measured region costs each event, on this thread: the smallest
    /// difference over `rounds` pairs of back-to-back samples (0 means 100). Subtract it
    /// from a measured delta when you ask for it (clamping at 0); it matters on Apple,
    /// where the fixed counters count the kernel's work in every read.
    ///
    /// # Errors
    /// [`BadState`](crate::Status::BadState) (not started), [`InvalidArgument`](crate::Status::InvalidArgument)
    /// (more than 1,000,000 rounds), [`Kernel`](crate::Status::Kernel),
    /// [`Partial`](crate::Status::Partial) (the events were multiplexed: no offset is
    /// meaningful).
    pub fn calibrate(&self, rounds: u32) -> Result<[u64; N]> {
        let mut offsets = [0u64; N];
        // SAFETY: live handle on its thread; `offsets` holds N elements.
        check(unsafe {
            ffi::kp_thread_calibrate(self.raw.as_ptr(), offsets.as_mut_ptr(), N, rounds)
        })?;
        Ok(offsets)
    }

    /// The events, in order (copies).
    pub fn events(&self) -> Vec<Event> {
        let t = self.raw.as_ptr();
        // SAFETY: live handle with N events; the accessors also accept NULL.
        (0..N)
            .map(|i| Event::copy(unsafe { ffi::kp_thread_event_at(t, i) }))
            .collect()
    }

    /// The raw `kp_thread_t`, for calling the C API directly (e.g. from a benchmark). It
    /// stays owned by `self`: do not free it, and use it only on this thread.
    pub fn as_ptr(&self) -> *mut ffi::kp_thread_t {
        self.raw.as_ptr()
    }
}

impl<const N: usize> Drop for ThreadSampler<N> {
    fn drop(&mut self) {
        // SAFETY: owned handle, freed once (kp_thread_free stops counting first).
        unsafe { ffi::kp_thread_free(self.raw.as_ptr()) }
    }
}

impl<const N: usize> std::fmt::Debug for ThreadSampler<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.events().iter().map(|e| e.name.clone()).collect();
        f.debug_struct("ThreadSampler")
            .field("events", &names)
            .field("running", &self.is_running())
            .finish()
    }
}
