//! Per-thread and per-process CPU performance counters through libkpc's C ABI: Apple Silicon (kperf) and
//! Linux (perf_event).
//!
//! ```no_run
//! use kpc::Sampler;
//!
//! fn main() -> Result<(), kpc::SamplerError> {
//!     let sampler = Sampler::new()?;
//!     let mut counters = sampler.thread(["instructions", "cycles"])?; // this thread only
//!     counters.start()?;
//!     let before = counters.sample()?;
//!     let sum: u64 = (0..1_000_000u64).sum(); // the work being measured
//!     let after = counters.sample()?;
//!     println!("{} instructions, {} cycles (sum {})", after[0] - before[0], after[1] - before[1], sum);
//!     Ok(())
//! }
//! ```
//!
//! - [`Sampler`]: one per process; `Send + Sync`.
//! - [`ThreadSampler`]: N events counted on the thread that made it; neither `Send` nor
//!   `Sync`. [`ThreadSampler::sample`] returns `[u64; N]` running totals and allocates
//!   nothing.
//! - [`Process`]: N events counted for a whole process, every thread of it: a command
//!   ([`Sampler::spawn`], counted from its exec) or a running process ([`Sampler::attach`];
//!   pid 0 is this one), or every CPU ([`Sampler::system_wide`]); [`ProcessOptions`] for a
//!   partial set or event groups. `Send + Sync`; [`Process::read`] returns `[u64; N]`,
//!   [`Process::read_thread`] one thread's share.
//! - [`Event`]: what libkpc knows about an event; events are chosen by name.
//! - [`SamplerError`]: every failure, with a [`Status`] to match on and libkpc's message,
//!   which names the cause and the fix.
//!
//! The names follow darwin-kperf's where the concepts match (MIGRATING.md maps the rest).
//! The library is found at build time through `KPC_LIB_DIR` or pkg-config (README.md).
#![deny(missing_docs)]

mod error;
mod event;
pub mod ffi;
mod process;
mod sampler;
mod thread;

pub use error::{Result, SamplerError, Status};
pub use event::{Event, EventKind, EventUnit, EVENT_NAME_MAX, MAX_EVENTS};
pub use process::{Process, ProcessExit, ProcessOptions, ProcessSample, ProcessScope, ThreadTotals};
pub use sampler::{Backend, Sampler, SamplerOptions};
pub use thread::{FullSample, ThreadSampler};

/// The version of the libkpc library loaded at run time, e.g. "0.1.0".
pub fn version() -> String {
    // SAFETY: static string.
    ffi::owned(unsafe { ffi::kp_version_string() }).unwrap_or_default()
}
