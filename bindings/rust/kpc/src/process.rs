//! Process: N events counted for a whole process, every thread of it.

use std::ffi::{CString, OsStr};
use std::os::raw::{c_char, c_int};
use std::os::unix::ffi::OsStrExt;
use std::ptr::{self, NonNull};
use std::sync::{Mutex, MutexGuard};

use crate::error::{check, Result, SamplerError, Status};
use crate::event::Event;
use crate::ffi;
use crate::sampler::{event_names, Sampler};

/// What one event of a [`Process`] covers (`kp_process_scope_t`).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProcessScope {
    /// Linux: the process, every thread of it, and the threads and processes it creates
    /// while counted.
    Tree,
    /// Apple recount: the process and its threads, not the processes it starts (the
    /// kernel's own accounting of the process).
    Process,
    /// Every CPU of the machine, so everything else that ran meanwhile too
    /// ([`Sampler::system_wide`]; Apple kperf's process counts).
    System,
}

/// Options for [`Sampler::spawn_with`], [`Sampler::attach_with`] and
/// [`Sampler::system_wide_with`] (`kp_process_options_t`). `Default`: no options, exactly
/// what [`Sampler::spawn`] and [`Sampler::attach`] do.
///
/// ```no_run
/// # fn main() -> Result<(), kpc::SamplerError> {
/// let sampler = kpc::Sampler::new()?;
/// let options = kpc::ProcessOptions {
///     partial: true,            // count what can be counted; see Process::event_status
///     groups: Some([-1, 0, 0]), // cycles and instructions over the same time
/// };
/// let p = sampler.spawn_with(["make"], ["task-clock", "cycles", "instructions"], &options)?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProcessOptions<const N: usize> {
    /// `KP_PROCESS_PARTIAL`: an event that cannot be counted (not on this machine, or the
    /// backend refused it) does not fail the call; it reads 0, incomplete, and
    /// [`Process::event_status`] says why. The call still fails when none can be counted.
    pub partial: bool,
    /// Per event, its group number (>= 0) or -1 for none; `None`: no groups. The events of
    /// one group are scheduled on the PMU together, so they count over the same time
    /// (Linux: one perf_event group; Apple never multiplexes).
    pub groups: Option<[i32; N]>,
}

impl<const N: usize> ProcessOptions<N> {
    /// The C struct, initialised by `kp_process_options_init`; it points into `self`.
    fn to_c(&self) -> Result<ffi::kp_process_options_t> {
        let mut c = ffi::kp_process_options_t {
            version: 0,
            flags: 0,
            groups: ptr::null(),
        };
        // SAFETY: fills the struct for the version this crate was written against.
        check(unsafe { ffi::kp_process_options_init(&mut c, ffi::KP_PROCESS_OPTIONS_VERSION) })?;
        if self.partial {
            c.flags |= ffi::KP_PROCESS_PARTIAL;
        }
        if let Some(groups) = &self.groups {
            c.groups = groups.as_ptr(); // N entries, one per event, as libkpc reads them
        }
        Ok(c)
    }
}

/// [`Process::read_thread`]: the totals of one per-thread counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadTotals<const N: usize> {
    /// The thread's id (Linux `gettid()`).
    pub tid: i32,
    /// What that thread counted plus the threads and processes it created while counted,
    /// in event order.
    pub values: [u64; N],
    /// Per event: `false` when multiplexed, or not counted (see [`Process::event_status`]).
    pub complete: [bool; N],
}

/// How a spawned command ended ([`Process::wait`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProcessExit {
    /// The exit status (0-255) if the command exited; `None` if a signal killed it.
    pub code: Option<i32>,
    /// The signal that killed it; `None` if it exited.
    pub signal: Option<i32>,
}

impl ProcessExit {
    /// Whether the command exited with status 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// [`Process::read_full`]: the running totals plus, per event, how complete each is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessSample<const N: usize> {
    /// Running totals, in event order (as [`Process::read`]).
    pub values: [u64; N],
    /// Per event: `false` when the kernel multiplexed it, so its value covers only
    /// `time_running_ns[i]` of `time_enabled_ns[i]`; also on Apple's recount backend when an
    /// attached process was reaped before its final totals were read (the last read).
    pub complete: [bool; N],
    /// Per event: nanoseconds enabled, summed over the threads counted (so it can exceed
    /// the wall-clock time); 0 when the backend does not measure it (Apple).
    pub time_enabled_ns: [u64; N],
    /// Per event: nanoseconds on a counter, summed likewise; 0 likewise.
    pub time_running_ns: [u64; N],
}

/// N events counted for a whole process (`kp_process_t`): every thread of it, and on Linux
/// the threads and processes it starts ([`Process::scope`] says what each event covers).
///
/// Made by [`Sampler::spawn`] (a command, counted from its exec), [`Sampler::attach`]
/// (a running process; pid 0 is the calling process, every thread of it) or
/// [`Sampler::system_wide`] (every CPU), or their `_with` forms taking [`ProcessOptions`].
/// It counts from the moment it is made; [`stop`](Self::stop) pauses and
/// [`start`](Self::start) resumes. [`read_thread`](Self::read_thread) gives one thread's
/// share of an attached process.
///
/// ```no_run
/// # fn main() -> Result<(), kpc::SamplerError> {
/// let sampler = kpc::Sampler::new()?;
/// let make = sampler.spawn(["make", "-j8"], ["task-clock", "page-faults"])?;
/// let exit = make.wait()?; // ProcessExit { code: Some(0), signal: None }
/// let [ns, faults] = make.read()?; // totals stay readable after the command ended
/// println!("{:?}: task-clock {} ns, {} page faults", exit, ns, faults);
///
/// let me = sampler.attach(0, ["page-faults"])?; // this process, all its threads
/// std::thread::scope(|s| { s.spawn(|| { /* work */ }); });
/// println!("{} page faults", me.read()?[0]);
/// # Ok(())
/// # }
/// ```
///
/// **Threads.** Unlike [`crate::ThreadSampler`], a `Process` is not tied to a thread: it is
/// `Send + Sync`, and its methods take `&self`, so one thread may [`wait`](Self::wait)
/// while others [`read`](Self::read), stop or start (libkpc serializes them, except that
/// the wait does not block the others).
///
/// Dropping it stops counting and frees the handle; a spawned command that has not been
/// waited for is killed (SIGKILL) and reaped then, so no process or zombie outlives it. An
/// attached process keeps running. It keeps its sampler's session alive.
pub struct Process<const N: usize> {
    raw: NonNull<ffi::kp_process_t>,
    /// Reads and status look-ups take turns: a reason from kp_process_event_status lives
    /// only until the handle's next read, so it is copied before another read can run.
    reading: Mutex<()>,
}

// SAFETY: kpc/process.h: every kp_process_* function may be called from any thread, and
// calls on one handle take turns on a lock inside it (the wait excepted, which holds
// none); only kp_process_free must not race, and Drop has exclusive access.
unsafe impl<const N: usize> Send for Process<N> {}
unsafe impl<const N: usize> Sync for Process<N> {}

impl Sampler {
    /// Starts the command `argv` (the program, looked up in PATH, then its arguments) and
    /// counts `events` in it from its exec on (`kp_process_spawn`). Returns once the
    /// command runs. Do not reap it yourself; [`Process::wait`] does.
    ///
    /// # Errors
    /// [`Status::InvalidArgument`] (no events or more than [`MAX_EVENTS`](crate::MAX_EVENTS), an empty `argv`, a name
    /// listed twice, a NUL byte, or the command cannot be run: the message names the
    /// program and the exec error, [`SamplerError::os_code`] its errno),
    /// [`Status::UnknownEvent`], [`Status::Unavailable`], [`Status::PermissionDenied`],
    /// [`Status::Busy`], [`Status::Unsupported`], [`Status::BadState`] (sampler released),
    /// [`Status::Kernel`], [`Status::Framework`], [`Status::OutOfMemory`].
    pub fn spawn<A, I, S, const N: usize>(&self, argv: I, events: [S; N]) -> Result<Process<N>>
    where
        I: IntoIterator<Item = A>,
        A: AsRef<OsStr>,
        S: AsRef<str>,
    {
        self.spawn_ex(argv, events, None)
    }

    /// [`spawn`](Self::spawn) with options (`kp_process_spawn_ex`): a partial set, event
    /// groups.
    ///
    /// # Errors
    /// As `spawn`, plus [`Status::InvalidArgument`] for a group number below -1 and
    /// [`Status::Conflict`] for a group member on another PMU than its group. With
    /// `partial`, an event that cannot be counted is not an error: see
    /// [`Process::event_status`].
    pub fn spawn_with<A, I, S, const N: usize>(
        &self,
        argv: I,
        events: [S; N],
        options: &ProcessOptions<N>,
    ) -> Result<Process<N>>
    where
        I: IntoIterator<Item = A>,
        A: AsRef<OsStr>,
        S: AsRef<str>,
    {
        self.spawn_ex(argv, events, Some(options))
    }

    fn spawn_ex<A, I, S, const N: usize>(
        &self,
        argv: I,
        events: [S; N],
        options: Option<&ProcessOptions<N>>,
    ) -> Result<Process<N>>
    where
        I: IntoIterator<Item = A>,
        A: AsRef<OsStr>,
        S: AsRef<str>,
    {
        let args = argv
            .into_iter()
            .map(|a| {
                CString::new(a.as_ref().as_bytes()).map_err(|_| {
                    SamplerError::new(
                        Status::InvalidArgument,
                        format!("argument {:?} contains a NUL byte: remove it", a.as_ref()),
                    )
                })
            })
            .collect::<Result<Vec<CString>>>()?;
        let mut arg_pointers: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        arg_pointers.push(ptr::null());
        let names = event_names(&events)?;
        let pointers: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let c_options = options.map(ProcessOptions::to_c).transpose()?;
        let mut raw = ptr::null_mut();
        // SAFETY: `pointers` holds N C strings, `arg_pointers` is NULL-terminated and the
        // options (NULL or pointing into `options`, N groups) outlive the call; libkpc
        // copies all of them during it.
        check(unsafe {
            ffi::kp_process_spawn_ex(
                &mut raw,
                self.raw.as_ptr(),
                pointers.as_ptr(),
                N,
                arg_pointers.as_ptr(),
                c_options.as_ref().map_or(ptr::null(), |o| o as *const _),
            )
        })?;
        Process::from_raw(raw, "kp_process_spawn_ex")
    }

    /// Counts `events` in the running process `pid` from now on (`kp_process_attach`); pid
    /// 0 is the calling process: every thread of it, including threads started later.
    ///
    /// # Errors
    /// [`Status::InvalidArgument`] (no such process: [`SamplerError::os_code`] is ESRCH; a
    /// negative pid; a bad event list), [`Status::PermissionDenied`] (the message says what
    /// to change; Apple recount: it runs as another user), [`Status::Unsupported`] (the
    /// backend cannot count a process, e.g. recount's cycles in a macOS VM),
    /// [`Status::UnknownEvent`], [`Status::Unavailable`], [`Status::Busy`],
    /// [`Status::BadState`], [`Status::Kernel`] (too many open files: one per thread and
    /// event), [`Status::Framework`], [`Status::OutOfMemory`].
    pub fn attach<S: AsRef<str>, const N: usize>(
        &self,
        pid: i32,
        events: [S; N],
    ) -> Result<Process<N>> {
        self.attach_with(pid, events, &ProcessOptions::default())
    }

    /// [`attach`](Self::attach) with options (`kp_process_attach_ex`): a partial set, event
    /// groups (Linux: one perf_event group per counted thread).
    ///
    /// # Errors
    /// As `attach` (a negative pid included: system-wide is
    /// [`system_wide_with`](Self::system_wide_with)), plus [`Status::InvalidArgument`] for a
    /// group number below -1 and [`Status::Conflict`] as for
    /// [`spawn_with`](Self::spawn_with).
    pub fn attach_with<S: AsRef<str>, const N: usize>(
        &self,
        pid: i32,
        events: [S; N],
        options: &ProcessOptions<N>,
    ) -> Result<Process<N>> {
        if pid < 0 {
            return Err(SamplerError::new(
                Status::InvalidArgument,
                format!(
                    "attach: pid {} is negative; give a process id, or 0 for this process \
                     (every CPU: Sampler::system_wide)",
                    pid
                ),
            ));
        }
        self.attach_ex(pid, events, options)
    }

    /// Counts `events` on every CPU, whatever runs there, from now on (`kp_process_attach_ex`
    /// with `KP_PROCESS_SYSTEM_WIDE`). Every event's scope is [`ProcessScope::System`];
    /// [`Process::pid`] is -1, [`Process::wait`] is [`Status::BadState`] and
    /// [`Process::thread_count`] is 0.
    ///
    /// # Errors
    /// [`Status::PermissionDenied`] (Linux: needs `kernel.perf_event_paranoid` <= 0,
    /// CAP_PERFMON or root; the message names the setting), [`Status::Unsupported`] (Apple's
    /// recount backend: use kperf as root), and the event-list errors of
    /// [`attach`](Self::attach).
    pub fn system_wide<S: AsRef<str>, const N: usize>(&self, events: [S; N]) -> Result<Process<N>> {
        self.system_wide_with(events, &ProcessOptions::default())
    }

    /// [`system_wide`](Self::system_wide) with options (Linux: a group is one perf_event
    /// group per CPU). Errors as `system_wide` and [`attach_with`](Self::attach_with).
    pub fn system_wide_with<S: AsRef<str>, const N: usize>(
        &self,
        events: [S; N],
        options: &ProcessOptions<N>,
    ) -> Result<Process<N>> {
        self.attach_ex(ffi::KP_PROCESS_SYSTEM_WIDE, events, options)
    }

    fn attach_ex<S: AsRef<str>, const N: usize>(
        &self,
        pid: i32,
        events: [S; N],
        options: &ProcessOptions<N>,
    ) -> Result<Process<N>> {
        let names = event_names(&events)?;
        let pointers: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let c_options = options.to_c()?;
        let mut raw = ptr::null_mut();
        // SAFETY: `pointers` holds N C strings and the options point into `options` (N
        // groups); libkpc copies both during the call.
        check(unsafe {
            ffi::kp_process_attach_ex(
                &mut raw,
                self.raw.as_ptr(),
                pointers.as_ptr(),
                N,
                pid,
                &c_options,
            )
        })?;
        Process::from_raw(raw, "kp_process_attach_ex")
    }
}

impl<const N: usize> Process<N> {
    fn from_raw(raw: *mut ffi::kp_process_t, made_by: &str) -> Result<Self> {
        match NonNull::new(raw) {
            Some(raw) => Ok(Process {
                raw,
                reading: Mutex::new(()),
            }),
            None => Err(SamplerError::new(
                Status::Error,
                format!("{} returned KP_OK without a handle", made_by),
            )),
        }
    }

    /// Resumes counting after [`stop`](Self::stop). Does nothing if counting.
    ///
    /// # Errors
    /// [`Status::BadState`] (sampler released), [`Status::PermissionDenied`] (recount: the
    /// process now runs as another user), [`Status::Busy`] (Apple kperf), [`Status::Kernel`].
    pub fn start(&self) -> Result<()> {
        // SAFETY: live handle; any thread.
        check(unsafe { ffi::kp_process_start(self.raw.as_ptr()) })
    }

    /// Pauses counting in every thread and child of the process; the totals stay readable.
    /// Does nothing if stopped.
    ///
    /// # Errors
    /// [`Status::Kernel`]; on recount [`Status::PermissionDenied`] or [`Status::Kernel`] when
    /// the totals could not be read at the stop (it stops anyway, keeping the totals last
    /// read, not complete).
    pub fn stop(&self) -> Result<()> {
        // SAFETY: as start.
        check(unsafe { ffi::kp_process_stop(self.raw.as_ptr()) })
    }

    /// Whether counting (made, and not stopped).
    pub fn is_counting(&self) -> bool {
        // SAFETY: live handle.
        unsafe { ffi::kp_process_is_counting(self.raw.as_ptr()) == 1 }
    }

    /// The running totals, in the order the events were given: while the process runs,
    /// and after it ends (they then stay as they were at its end; on Apple's recount backend,
    /// an attached process that its parent reaped before its final totals were read keeps
    /// the totals last read, and [`read_full`](Self::read_full) reports them not complete).
    ///
    /// # Errors
    /// [`Status::BadState`] (sampler released), [`Status::PermissionDenied`] (recount: the
    /// process runs as another user, e.g. a setuid command), [`Status::Kernel`].
    pub fn read(&self) -> Result<[u64; N]> {
        let _turn = self.reading();
        let mut values = [0u64; N];
        // SAFETY: live handle; `values` holds N elements.
        check(unsafe { ffi::kp_process_read(self.raw.as_ptr(), values.as_mut_ptr(), N) })?;
        Ok(values)
    }

    /// [`read`](Self::read) plus, per event, whether it was multiplexed and its enabled and
    /// running times. Errors as `read`.
    pub fn read_full(&self) -> Result<ProcessSample<N>> {
        let mut values = [0u64; N];
        let mut complete = [0u8; N];
        let (mut enabled, mut running) = ([0u64; N], [0u64; N]);
        let _turn = self.reading();
        // SAFETY: live handle; every buffer holds N elements.
        check(unsafe {
            ffi::kp_process_read_full(
                self.raw.as_ptr(),
                values.as_mut_ptr(),
                complete.as_mut_ptr(),
                N,
                enabled.as_mut_ptr(),
                running.as_mut_ptr(),
            )
        })?;
        Ok(ProcessSample {
            values,
            complete: complete.map(|c| c != 0),
            time_enabled_ns: enabled,
            time_running_ns: running,
        })
    }

    /// Whether event `index` is counted: `Ok(())` if so, else the error it failed with (its
    /// [`Status`], e.g. [`Status::Unavailable`], and libkpc's reason as the message, naming
    /// the fix where there is one). As known at creation or the last read (some backends
    /// learn of a failure only when reading). Without [`ProcessOptions::partial`] every
    /// event of a `Process` is counted. `index` N or more is [`Status::InvalidArgument`].
    pub fn event_status(&self, index: usize) -> Result<()> {
        let _turn = self.reading();
        let mut status: c_int = 0;
        let mut reason: *const c_char = ptr::null();
        // SAFETY: live handle; valid out pointers. The reason is copied before the lock
        // that keeps reads away is released.
        check(unsafe {
            ffi::kp_process_event_status(self.raw.as_ptr(), index, &mut status, &mut reason)
        })?;
        if status == 0 {
            Ok(())
        } else {
            Err(SamplerError::with_code(
                status,
                ffi::owned(reason).unwrap_or_default(),
            ))
        }
    }

    /// [`event_status`](Self::event_status) of every event, in event order.
    pub fn event_statuses(&self) -> [Result<()>; N] {
        std::array::from_fn(|i| self.event_status(i))
    }

    /// Number of per-thread counters, for [`read_thread`](Self::read_thread)
    /// (`kp_process_thread_count`). Fixed when the handle is made. Linux: an attached
    /// process has one per thread it had at the attach; a spawned command 1, its first
    /// thread. 0 system-wide and on Apple.
    pub fn thread_count(&self) -> usize {
        // SAFETY: live handle.
        unsafe { ffi::kp_process_thread_count(self.raw.as_ptr()) }
    }

    /// The totals of per-thread counter `index` (`kp_process_read_thread`): what that
    /// thread counted plus the threads and processes it created while counted (a thread
    /// that ended keeps its final totals). The rows add up to [`read`](Self::read) for
    /// events counted on every thread.
    ///
    /// # Errors
    /// [`Status::InvalidArgument`] (`index` not below [`thread_count`](Self::thread_count)),
    /// [`Status::BadState`] (sampler released), [`Status::Kernel`].
    pub fn read_thread(&self, index: usize) -> Result<ThreadTotals<N>> {
        let _turn = self.reading();
        let mut tid = 0i32;
        let mut values = [0u64; N];
        let mut complete = [0u8; N];
        // SAFETY: live handle; both buffers hold N elements.
        check(unsafe {
            ffi::kp_process_read_thread(
                self.raw.as_ptr(),
                index,
                &mut tid,
                values.as_mut_ptr(),
                complete.as_mut_ptr(),
                N,
            )
        })?;
        Ok(ThreadTotals {
            tid,
            values,
            complete: complete.map(|c| c != 0),
        })
    }

    /// [`read_thread`](Self::read_thread) of every per-thread counter, in order.
    pub fn read_threads(&self) -> Result<Vec<ThreadTotals<N>>> {
        (0..self.thread_count())
            .map(|i| self.read_thread(i))
            .collect()
    }

    fn reading(&self) -> MutexGuard<'_, ()> {
        // The guarded data is (): a panic while holding it leaves nothing inconsistent.
        self.reading
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits for a spawned command to end and reaps it; at once, with the same result, if
    /// it already has. Counting is left as it is: read the totals afterwards.
    ///
    /// # Errors
    /// [`Status::BadState`] (an attached process, which libkpc did not start; or someone
    /// else reaped the command), [`Status::Kernel`].
    pub fn wait(&self) -> Result<ProcessExit> {
        let (mut code, mut signal): (c_int, c_int) = (-1, 0);
        // SAFETY: live handle; valid out pointers. The wait holds no lock in libkpc.
        check(unsafe { ffi::kp_process_wait(self.raw.as_ptr(), &mut code, &mut signal) })?;
        Ok(ProcessExit {
            code: if code >= 0 { Some(code) } else { None },
            signal: if signal != 0 { Some(signal) } else { None },
        })
    }

    /// The counted process's id (this process's own for an attach with pid 0; -1
    /// system-wide).
    pub fn pid(&self) -> i32 {
        // SAFETY: live handle.
        unsafe { ffi::kp_process_pid(self.raw.as_ptr()) }
    }

    /// What event `index` covers; `None` out of range (or for a scope this crate does not
    /// know yet).
    pub fn scope(&self, index: usize) -> Option<ProcessScope> {
        // SAFETY: live handle; out-of-range indices return -1.
        match unsafe { ffi::kp_process_event_scope(self.raw.as_ptr(), index) } {
            ffi::KP_PROCESS_SCOPE_TREE => Some(ProcessScope::Tree),
            ffi::KP_PROCESS_SCOPE_PROCESS => Some(ProcessScope::Process),
            ffi::KP_PROCESS_SCOPE_SYSTEM => Some(ProcessScope::System),
            _ => None,
        }
    }

    /// The events, in order (copies).
    pub fn events(&self) -> Vec<Event> {
        let p = self.raw.as_ptr();
        // SAFETY: live handle with N events.
        (0..N)
            .map(|i| Event::copy(unsafe { ffi::kp_process_event_at(p, i) }))
            .collect()
    }

    /// The raw `kp_process_t`, for calling the C API directly. It stays owned by `self`:
    /// do not free it.
    pub fn as_ptr(&self) -> *mut ffi::kp_process_t {
        self.raw.as_ptr()
    }
}

impl<const N: usize> Drop for Process<N> {
    fn drop(&mut self) {
        // SAFETY: owned handle, freed once, with no other call in progress (&mut self).
        unsafe { ffi::kp_process_free(self.raw.as_ptr()) }
    }
}

impl<const N: usize> std::fmt::Debug for Process<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self.events().iter().map(|e| e.name.clone()).collect();
        f.debug_struct("Process")
            .field("pid", &self.pid())
            .field("events", &names)
            .field("counting", &self.is_counting())
            .finish()
    }
}
