//! A Criterion 0.3 [`Measurement`] that counts a CPU event with libkpc instead of timing:
//! instructions, cycles, branch mispredictions, L1D misses, or any event libkpc knows
//! (page-faults, task-clock, native names).
//!
//! ```no_run
//! use criterion::{black_box, criterion_main, Criterion};
//! use kpc_criterion::{criterion_group, HardwareCounter};
//!
//! fn bench_sum(c: &mut Criterion<HardwareCounter>) {
//!     c.bench_function("sum 1000", |b| b.iter(|| (0..black_box(1000u64)).sum::<u64>()));
//! }
//!
//! fn counted() -> Criterion<HardwareCounter> {
//!     match HardwareCounter::instructions() {
//!         Ok(counter) => kpc_criterion::criterion(counter),
//!         Err(e) => {
//!             eprintln!("cannot count instructions: {}", e); // the cause and the fix
//!             std::process::exit(1)
//!         }
//!     }
//! }
//!
//! criterion_group! { name = benches; config = counted(); targets = bench_sum }
//! criterion_main!(benches);
//! ```
//!
//! **Plots stay off.** Counts are often exact: every sample equal. Criterion 0.3's plots
//! then panic (`assertion failed: slice.len() > 1 && slice.iter().all(|x| !x.is_nan())`,
//! criterion.rs #887), and Criterion's own `criterion_group!` turns plots back on unless
//! the command line says `--noplot`. This crate's [`criterion_group!`] takes the same
//! arguments and keeps them off, whatever the command line says; [`criterion()`] is
//! Criterion's defaults with this counter and no plots.
//!
//! Every constructor starts counting on the calling thread and reads once, so anything
//! that stops counting (no permission, no PMU, an unknown event) is an `Err` with libkpc's
//! message, never a panic in the middle of a benchmark. Several counters may live in one
//! process: they share one [`Sampler`].
//!
//! A `HardwareCounter` counts the thread that created it, which is why it is neither
//! `Send` nor `Sync`; Criterion runs benchmarks on the thread that builds the
//! `Criterion`, so build it in the `config` function as above.
#![deny(missing_docs)]

mod formatter;

use std::sync::{Arc, Mutex, Weak};

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::Criterion;
use kpc::{Event, Sampler, ThreadSampler};

use formatter::{CountFormatter, Unit};

pub use kpc::{SamplerError, Status};

/// Criterion's defaults for counting with `counter`: no plots (they panic on exact counts,
/// see the crate documentation) and a noise threshold of 0.
///
/// Criterion's analysis needs nothing else for an exact count: its intervals are then
/// zero-wide, an unchanged count is "No change in performance detected" (p = NaN) and a
/// changed one has p = 0.00. But its default noise threshold, 1%, calls a real change of
/// an exact count below 1% (200 to 201 page faults) "Change within noise threshold";
/// with 0 the p-value alone decides, which for counts that vary (cycles) still filters noise.
pub fn criterion(counter: HardwareCounter) -> Criterion<HardwareCounter> {
    Criterion::default()
        .with_measurement(counter)
        .without_plots()
        .noise_threshold(0.0)
}

/// Criterion's `criterion_group!` with plots kept off: the same
/// `name = ...; config = ...; targets = ...` form, for any `Criterion` the config builds.
///
/// Criterion's macro applies the command line to the config (`configure_from_args`), which
/// turns plots back on unless `--noplot` was given; this one applies it, then turns plots
/// off, so `cargo bench` of an exact count cannot reach the plots' panic (criterion.rs #887).
/// Use it with Criterion's `criterion_main!`.
#[macro_export]
macro_rules! criterion_group {
    (name = $name:ident; config = $config:expr; targets = $( $target:path ),+ $(,)*) => {
        pub fn $name() {
            let mut criterion = $config.configure_from_args().without_plots();
            $(
                $target(&mut criterion);
            )+
        }
    };
}

/// Counts one event on the calling thread for Criterion (see the crate documentation).
pub struct HardwareCounter {
    counter: ThreadSampler<1>,
    event: Event,
    formatter: CountFormatter,
    overhead: u64,
    /// Keeps the process's shared session alive while this counter exists.
    _sampler: Arc<Sampler>,
}

impl HardwareCounter {
    /// Retired instructions (generic event `instructions`).
    ///
    /// # Errors
    /// As [`HardwareCounter::custom`]; on a machine without a usable PMU (most virtual
    /// machines) [`Status::Unavailable`] or [`Status::Unsupported`], and without permission
    /// [`Status::PermissionDenied`], each with the fix in the message.
    pub fn instructions() -> Result<Self, SamplerError> {
        Self::custom("instructions")
    }

    /// Core clock cycles (generic event `cycles`). Errors as [`HardwareCounter::instructions`].
    pub fn cycles() -> Result<Self, SamplerError> {
        Self::custom("cycles")
    }

    /// Retired branches that were mispredicted (generic event `branch-misses`). Errors as
    /// [`HardwareCounter::instructions`].
    pub fn branch_mispredictions() -> Result<Self, SamplerError> {
        Self::custom("branch-misses")
    }

    /// Loads that missed the L1 data cache (generic event `l1d-load-misses`). Errors as
    /// [`HardwareCounter::instructions`].
    pub fn l1d_cache_misses() -> Result<Self, SamplerError> {
        Self::custom("l1d-load-misses")
    }

    /// Any event libkpc knows, by generic or native name: "page-faults", "task-clock",
    /// "FIXED_CYCLES", "r003c", ... (docs/events.md; `kpc list` shows this machine's).
    ///
    /// # Errors
    /// Whatever creating, starting or reading the counter gives: [`Status::UnknownEvent`]
    /// (the message suggests close names), [`Status::Unavailable`],
    /// [`Status::PermissionDenied`], [`Status::Busy`], [`Status::Unsupported`],
    /// [`Status::LoadFailed`], [`Status::Kernel`], [`Status::InvalidArgument`].
    pub fn custom(name: &str) -> Result<Self, SamplerError> {
        let sampler = shared_sampler()?;
        let mut counter = sampler.thread([name])?;
        counter.start()?;
        counter.sample()?;
        let event = counter.events().remove(0); // a ThreadSampler<1> has one event
        let formatter = CountFormatter {
            unit: Unit::of(&event.name, &event.native_name),
        };
        Ok(HardwareCounter {
            counter,
            event,
            formatter,
            overhead: 0,
            _sampler: sampler,
        })
    }

    /// Subtracts what an empty measured region counts from every measurement (the smallest
    /// of 1000 back-to-back sample pairs, `kp_thread_calibrate`). It matters for Apple's
    /// fixed counters, which count the kernel's work in each read; for counts of discrete
    /// events (page faults) it is 0 anyway. Criterion's slope estimate already ignores a
    /// constant cost per sample; this corrects the mean too.
    ///
    /// # Errors
    /// [`Status::Kernel`] if a read fails.
    pub fn subtract_overhead(mut self) -> Result<Self, SamplerError> {
        let [offset] = self.counter.calibrate(1000)?;
        self.overhead = offset;
        Ok(self)
    }

    /// The event counted.
    pub fn event(&self) -> &Event {
        &self.event
    }

    /// The amount subtracted from each measurement (0 unless
    /// [`HardwareCounter::subtract_overhead`] was called).
    pub fn overhead(&self) -> u64 {
        self.overhead
    }

    fn read(&self) -> u64 {
        match self.counter.sample() {
            Ok([value]) => value,
            // Only if a read fails after one succeeded at construction (the kernel fails
            // it, or multiplexes the event: Partial, libkpc's message says what holds the
            // counters): Criterion's Measurement has no way to return an error.
            Err(e) => panic!("kpc-criterion: reading {} failed: {}", self.event.name, e),
        }
    }
}

impl Measurement for HardwareCounter {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        self.read()
    }

    fn end(&self, start: u64) -> u64 {
        // Totals never decrease; the overhead is clamped at 0.
        self.read()
            .saturating_sub(start)
            .saturating_sub(self.overhead)
    }

    fn add(&self, v1: &u64, v2: &u64) -> u64 {
        v1 + v2
    }

    fn zero(&self) -> u64 {
        0
    }

    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &self.formatter
    }
}

impl std::fmt::Debug for HardwareCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HardwareCounter")
            .field("event", &self.event.name)
            .field("overhead", &self.overhead)
            .finish()
    }
}

/// One sampler per process (libkpc's rule), shared by every live `HardwareCounter` and
/// freed with the last of them, which on Apple gives the counters back.
fn shared_sampler() -> Result<Arc<Sampler>, SamplerError> {
    static SHARED: Mutex<Option<Weak<Sampler>>> = Mutex::new(None);
    let mut slot = SHARED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(sampler) = slot.as_ref().and_then(Weak::upgrade) {
        return Ok(sampler);
    }
    let sampler = Arc::new(Sampler::new()?);
    *slot = Some(Arc::downgrade(&sampler));
    Ok(sampler)
}
