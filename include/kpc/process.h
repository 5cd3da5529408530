/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/**
 * @file kpc/process.h
 * @brief kp_process_t: a set of events counted for a whole process, every thread of it.
 * @defgroup kp_process Process counters
 *
 * Two ways to get one:
 *  - kp_process_spawn() starts a command and counts it from its exec: nothing the new
 *    process did before the exec (libkpc's own set-up in it) is counted;
 *  - kp_process_attach() counts a process that is already running, from now on; pid 0
 *    is the calling process itself (e.g. every goroutine of a Go program).
 *
 * Typical use:
 * @code
 *   const char *names[] = {"task-clock", "page-faults"};
 *   const char *argv[] = {"make", "-j8", NULL};
 *   kp_process_t *p;
 *   if (kp_process_spawn(&p, sampler, names, 2, argv) == KP_OK) {
 *       int code, sig;
 *       uint64_t totals[2];
 *       kp_process_wait(p, &code, &sig);
 *       kp_process_read(p, totals, 2);
 *       kp_process_free(p);
 *   }
 * @endcode
 *
 * Values are running totals (never decreasing) from when counting began, excluding the
 * time between kp_process_stop() and kp_process_start(). A handle counts from the moment
 * it is made (a spawned command: from its exec); there is no separate first start.
 *
 * What is counted (each event says which with kp_process_event_scope()):
 *  - Linux (perf_event), KP_PROCESS_SCOPE_TREE: every thread of the process, and every
 *    thread and process it creates while counted. A spawned command has one thread when
 *    counting begins, so all of its work after the exec is covered. For an attached
 *    process, libkpc lists its threads (/proc/<pid>/task) and opens one counter per
 *    thread and event; a thread created during kp_process_attach() by a thread not yet
 *    reached is not counted (the same limit as `perf stat -p`); threads created after it
 *    returns are. Each counted thread costs one file descriptor per event. A setuid or
 *    setgid program that the process execs stops being counted (the kernel's rule).
 *  - Apple, recount backend, KP_PROCESS_SCOPE_PROCESS: the process's own totals, kept by
 *    the kernel (proc_pid_rusage): every thread it ran, dead ones included, not the
 *    processes it starts. Reads while the process runs give its live totals. A spawned
 *    command is counted from the process's creation, so libkpc's own few thousand
 *    instructions in it before the exec are included; at its end libkpc reads its final
 *    totals just before kp_process_wait() reaps it, and later reads return those. An
 *    attached process is counted from the attach. macOS lets a caller read another
 *    process's totals only when both run as the same (effective) user, or the caller is
 *    root. Once an attached process has ended and its parent has reaped it, reads keep the
 *    totals last read, and kp_process_read_full() gives complete = 0: its work since that
 *    read is lost (read often to lose little).
 *  - Apple, kperf backend, KP_PROCESS_SCOPE_SYSTEM: kpc cannot attach counters to another
 *    process, so the counts are every CPU's, from the handle's creation: they include
 *    everything else the machine ran meanwhile. Use it on a quiet machine, or use recount.
 *    Exception: a spawned command's cycles and instructions come from its own totals
 *    (proc_pid_rusage, KP_PROCESS_SCOPE_PROCESS) where macOS keeps them, read while it
 *    runs and at its end, as on recount.
 *
 * Thread rules: unlike kp_thread_t, a kp_process_t is not tied to a thread. Every
 * function may be called from any thread. Calls on one handle take turns on a lock inside
 * it, except that kp_process_wait() waits for the process without holding it: one thread
 * may wait while another reads, stops or starts. kp_process_free() must not race with
 * another call on the same handle.
 *
 * Lifetime: the handle keeps its sampler's session alive (free them in any order). After
 * kp_sampler_release(), kp_process_start() and the reads return KP_ESTATE; free still works.
 * @{
 */
#ifndef KPC_PROCESS_H
#define KPC_PROCESS_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "event.h"
#include "sampler.h"

KP_BEGIN_DECL

/** Opaque handle: events counted for one whole process. */
typedef struct kp_process kp_process_t;

/** What an event of a kp_process_t covers. Explicit, stable values. */
typedef enum kp_process_scope {
    KP_PROCESS_SCOPE_TREE = 0,    /**< The process, all its threads, and the threads and processes it creates while counted. */
    KP_PROCESS_SCOPE_PROCESS = 1, /**< The process and all its threads, not the processes it starts (the kernel's own accounting of the process). */
    KP_PROCESS_SCOPE_SYSTEM = 2   /**< Every CPU of the machine: everything that ran while counting, the process included. */
} kp_process_scope_t;

/**
 * Constructor for kp_process_t: starts the command @p argv and counts @p count events in
 * it from its exec on. Returns once the command has been exec'd and counting has begun.
 *
 * The command starts like posix_spawnp() with no attributes: argv[0] is looked up in PATH;
 * it inherits this process's environment, working directory, signal mask, ignored signals
 * and every file descriptor not marked close-on-exec (libkpc's own are). Until the exec the
 * new process runs only async-signal-safe code, so this is safe in a multithreaded caller.
 * Do not reap the process yourself (waitpid(-1), SIGCHLD set to SIG_IGN): kp_process_wait()
 * does, and the recount backend reads its totals just before.
 *
 * @param[out] out receives the handle (NULL on failure); free with kp_process_free().
 * @param s the sampler; kept alive by the handle. Not consumed.
 * @param events array of @p count event names (generic or native, at most KP_EVENT_NAME_MAX bytes each);
 *   copied.
 * @param count 1 to KP_MAX_EVENTS (32) events.
 * @param argv the command: a NULL-terminated array whose first element is the program;
 *   copied. At least the program must be given.
 * @return KP_OK, or
 *   KP_EINVAL (a NULL argument, count 0 or over KP_MAX_EVENTS, an empty argv, a name longer than KP_EVENT_NAME_MAX
 *     bytes, a counter listed twice),
 *   KP_EEXEC (the command cannot be executed: the message names the program and the exec
 *     error, e.g. not found in PATH; the exec's errno is in kp_error_last_os_code(), ENOENT
 *     when not found, so a shell-like caller exits 127 for ENOENT and 126 otherwise),
 *   KP_EUNKNOWN_EVENT, KP_EUNAVAILABLE (event not on this machine/OS),
 *   KP_EPERM (counting not allowed: the message names the setting to change),
 *   KP_EBUSY (Apple kperf: another handle counts a different event set),
 *   KP_EUNSUPPORTED (the backend cannot count a process), KP_ESTATE (sampler released),
 *   KP_EKERNEL (fork or the kernel failed; errno in the message), KP_EFRAMEWORK, KP_ENOMEM.
 * On failure no process is left behind: a started child is killed and reaped.
 */
KP_API int kp_process_spawn(kp_process_t **out, kp_sampler_t *s, const char *const *events,
                            size_t count, const char *const *argv);

/** kp_process_options_t::flags: events that cannot be counted are reported per event
 *  (kp_process_event_status()) instead of failing the whole call. */
#define KP_PROCESS_PARTIAL 0x1u

/** Current version of kp_process_options_t; pass it to kp_process_options_init(). */
#define KP_PROCESS_OPTIONS_VERSION 1

/**
 * Options for kp_process_spawn_ex() and kp_process_attach_ex(). Initialise with kp_process_options_init(), then set
 * the fields you need. Not retained: read during the call only.
 */
typedef struct kp_process_options {
    unsigned int version; /**< KP_PROCESS_OPTIONS_VERSION. */
    unsigned int flags;   /**< 0 or KP_PROCESS_PARTIAL. */
    /** NULL, or one entry per event: its group number (>= 0), or -1 for none. The events
     *  of one group are scheduled on the PMU together, so they count over the same time
     *  (Linux: one perf_event group; Apple never multiplexes, so groups change nothing). */
    const int32_t *groups;
} kp_process_options_t;

/**
 * Fill @p opts with defaults (no flags, no groups) for structure version @p version.
 * @return KP_OK; KP_EINVAL if opts is NULL or version is not one this library knows.
 * Thread-safe.
 */
KP_API int kp_process_options_init(kp_process_options_t *opts, unsigned int version);

/**
 * kp_process_spawn() with options (NULL: exactly kp_process_spawn()). What differs:
 *  - KP_PROCESS_PARTIAL: an event that cannot be counted (not on this machine, or the
 *    backend refused it) does not fail the call; the command runs and the event reads 0
 *    with complete 0, and kp_process_event_status() says why. The call still fails when
 *    the backend can count none of them (the same errors as kp_process_spawn()), except
 *    that when every event is already known to be unavailable here the command runs
 *    uncounted, so that a tool reporting per event can still run it.
 *  - groups: as described in kp_process_options_t. A group member on another PMU than its
 *    group is KP_ECONFLICT (for that event under KP_PROCESS_PARTIAL).
 * @return as kp_process_spawn(), plus KP_EINVAL for options with an unknown version or
 *   unknown flags, or a group number below -1.
 * Thread rules, ownership and cleanup as kp_process_spawn().
 */
KP_API int kp_process_spawn_ex(kp_process_t **out, kp_sampler_t *s, const char *const *events,
                               size_t count, const char *const *argv,
                               const kp_process_options_t *options);

/**
 * Whether event @p index is counted, as known at the handle's creation or its last
 * kp_process_read() / kp_process_read_full() (some backends learn of a failure only when
 * reading). Without KP_PROCESS_PARTIAL every event of a handle is counted.
 * @param[out] status KP_OK when counted, else the code it failed with (e.g.
 *   KP_EUNAVAILABLE: this machine cannot count it). Required.
 * @param[out] reason optional: "" when counted, else why, naming the fix where there is
 *   one. It does not repeat the event's name (kp_process_event_at() gives the event), so
 *   events refused for one cause have one text. Borrowed from the handle: valid until the next read or kp_process_free() of it,
 *   so do not read the handle from another thread while using it.
 * @return KP_OK; KP_EINVAL (NULL p or status, or @p index out of range). Sets no error
 *   on success.
 */
KP_API int kp_process_event_status(const kp_process_t *p, size_t index, int *status,
                                   const char **reason);

/**
 * Constructor for kp_process_t: counts @p count events in the running process @p pid, and
 * the threads and processes it creates, from now on (Linux; see the header comment for what
 * is covered and for Apple).
 *
 * @param[out] out receives the handle (NULL on failure); free with kp_process_free().
 * @param s the sampler; kept alive by the handle. Not consumed.
 * @param events array of @p count event names; copied.
 * @param count 1 to KP_MAX_EVENTS (32) events.
 * @param pid the process to count; 0 means the calling process.
 * @return KP_OK, or
 *   KP_EINVAL (a NULL argument, count 0 or over KP_MAX_EVENTS, a name over KP_EVENT_NAME_MAX bytes, a counter listed
 *     twice, a negative pid, or no process @p pid exists (it exited, or the pid is wrong;
 *     kp_error_last_os_code() is ESRCH)),
 *   KP_EPERM (the caller may not count that process: it belongs to another user or is more
 *     privileged; or perf_event_paranoid forbids counting; the message says which and what
 *     to change; Apple recount: it runs as another user: run as that user, or as root with
 *     KPC_BACKEND=recount), KP_EUNKNOWN_EVENT, KP_EUNAVAILABLE, KP_EBUSY,
 *     KP_EUNSUPPORTED (the backend cannot count a process, e.g. recount's cycles in a macOS
 *     VM), KP_ESTATE (sampler released), KP_EKERNEL (too many open files: one per
 *     thread and event), KP_EFRAMEWORK, KP_ENOMEM.
 */
KP_API int kp_process_attach(kp_process_t **out, kp_sampler_t *s, const char *const *events,
                             size_t count, int32_t pid);

/** kp_process_attach_ex() pid: count every CPU, whatever runs on it (system-wide). */
#define KP_PROCESS_SYSTEM_WIDE (-1)

/**
 * kp_process_attach() with options (NULL: none), and one more target: system-wide.
 *  - KP_PROCESS_PARTIAL and groups: as kp_process_spawn_ex(). Linux: a group is one
 *    perf_event group per counted thread (or per CPU).
 *  - pid KP_PROCESS_SYSTEM_WIDE (-1): every event counts on every CPU, whatever runs
 *    there, from now on; every event is KP_PROCESS_SCOPE_SYSTEM. kp_process_pid() is -1;
 *    kp_process_wait() is KP_ESTATE; kp_process_thread_count() is 0.
 *    - Linux: one counter per online CPU and event (an event of a PMU that covers only some
 *      CPUs, e.g. a hybrid core type or an uncore PMU, on those CPUs). The kernel allows it
 *      with kernel.perf_event_paranoid <= 0, or to a process with CAP_PERFMON (Linux 5.8+)
 *      or CAP_SYS_ADMIN (root); otherwise KP_EPERM, whose message names the setting.
 *      CPUs brought online later are not counted.
 *    - Apple kperf: every counter on every CPU (what kperf counts anyway), root as always.
 *    - Apple recount: KP_EUNSUPPORTED (macOS gives an unprivileged process only per-process
 *      totals; use the kperf backend as root).
 * @return as kp_process_attach(), plus KP_EINVAL for a pid below -1, for options with an
 *   unknown version or flags, or a group number below -1.
 * Thread rules, ownership and cleanup as kp_process_attach().
 */
KP_API int kp_process_attach_ex(kp_process_t **out, kp_sampler_t *s, const char *const *events,
                                size_t count, int32_t pid, const kp_process_options_t *options);

/**
 * Number of per-thread counters the handle has, for kp_process_read_thread(). Fixed when
 * the handle is made:
 *  - Linux, an attached process: one per thread it had at the attach;
 *  - Linux, a spawned command: 1, its first thread (which every thread of it descends from);
 *  - 0 system-wide, and on Apple (macOS has no per-thread counts of another process).
 * Thread-safe; sets no error. 0 if p is NULL.
 */
KP_API size_t kp_process_thread_count(const kp_process_t *p);

/**
 * The totals of per-thread counter @p index: what that thread counted, plus the threads and
 * processes it created while counted (the kernel adds an inherited counter to its parent's,
 * as `perf stat --per-thread` shows). A thread that has ended keeps its final totals. The
 * rows add up to kp_process_read() for events counted on every thread.
 * @param p the handle. @param index 0 to kp_process_thread_count(p) - 1.
 * @param[out] tid optional: the thread's id (Linux gettid()).
 * @param values caller buffer of @p count elements; @param complete optional, likewise:
 *   as kp_process_read_full(). An event not counted (KP_PROCESS_PARTIAL) reads 0, complete 0.
 * @param count size of the buffers in elements, at least kp_process_event_count(p).
 * @return KP_OK; KP_EINVAL (NULL p or values, or @p index out of range); KP_EBUFSIZE;
 *   KP_ESTATE (sampler released); KP_EKERNEL. Thread rules as kp_process_read(). Allocates.
 */
KP_API int kp_process_read_thread(kp_process_t *p, size_t index, int32_t *tid, uint64_t *values,
                                  uint8_t *complete, size_t count);

/**
 * Destructor: stops counting and releases every counter and file descriptor of the handle.
 * Accepts NULL. Any thread, but never concurrently with another call on @p p.
 * A spawned command that has not been waited for is killed (SIGKILL) and reaped here, so
 * no process or zombie outlives the handle: wait for it first to let it finish. An
 * attached process is left running, no longer counted.
 */
KP_API void kp_process_free(kp_process_t *p);

/**
 * Resume counting after kp_process_stop(). Idempotent: a counting handle stays counting.
 * @return KP_OK; KP_EINVAL (NULL); KP_ESTATE (sampler released); KP_EPERM (recount: the
 *   process now runs as another user, so its totals cannot be read for the new starting
 *   point); KP_EBUSY (Apple kperf: another handle now counts a different event set);
 *   KP_EKERNEL.
 */
KP_API int kp_process_start(kp_process_t *p);

/**
 * Pause counting, in every thread and child of the process. Idempotent. Totals stay
 * readable and do not move until kp_process_start(), with one exception on Linux: a thread
 * or process being created at that very moment can escape the switch (the kernel gives
 * the newcomer the counter's state before linking it where the switch reaches), so it
 * counts while the rest is paused (and, created during kp_process_start(), may stay
 * paused). Seen in tests only when other threads create threads or processes meanwhile.
 * @return KP_OK; KP_EINVAL (NULL); KP_EPERM or KP_EKERNEL (recount: its totals could not
 *   be read at the stop; the handle is stopped anyway, keeping the totals last read, with
 *   complete 0); KP_EKERNEL.
 */
KP_API int kp_process_stop(kp_process_t *p);

/** 1 while counting (made, and not stopped), 0 if not (or p is NULL). Sets no error. */
KP_API int kp_process_is_counting(const kp_process_t *p);

/**
 * Write the running totals into @p values, in the order the events were given. May be
 * called while the process runs and after it has ended (the totals then stay as they were
 * at its end; for an attached process on Apple's recount backend that its parent reaped
 * before libkpc read its final totals, as they were at the last read, with complete 0
 * from kp_process_read_full()).
 * @param values caller buffer of at least kp_process_event_count(p) elements.
 * @param count size of @p values in elements.
 * @return KP_OK; KP_EINVAL (NULL); KP_EBUFSIZE (count too small); KP_ESTATE (sampler
 *   released); KP_EPERM (recount: the process runs as another user, e.g. a setuid command);
 *   KP_EKERNEL. Allocates.
 */
KP_API int kp_process_read(kp_process_t *p, uint64_t *values, size_t count);

/**
 * kp_process_read() plus, per event, how complete the count is. Each optional buffer
 * (NULL allowed) holds @p count elements:
 * @param complete 1 when the event was on a counter the whole time it was enabled, 0 when
 *   the kernel multiplexed it (its value then covers only time_running_ns[i] of
 *   time_enabled_ns[i]; scale by their ratio for an estimate); also 0 on Apple's
 *   per-process totals (recount) when an attached process ended and was reaped before its
 *   final totals were read (the value is then the last totals read).
 * @param time_enabled_ns nanoseconds the event was enabled, summed over the threads it
 *   counted (so it can exceed the wall-clock time); 0 when the backend does not measure it
 *   (Apple: never multiplexed).
 * @param time_running_ns nanoseconds it was on a counter, summed likewise; 0 likewise.
 * @return as kp_process_read().
 */
KP_API int kp_process_read_full(kp_process_t *p, uint64_t *values, uint8_t *complete,
                                size_t count, uint64_t *time_enabled_ns,
                                uint64_t *time_running_ns);

/**
 * Wait for a spawned command to end, and reap it. Blocks; returns at once if it already
 * ended and was waited for (with the same results). Counting is left as it is: read the
 * totals afterwards.
 * @param[out] exit_code optional: the exit status (0-255) if the command exited, else -1.
 * @param[out] term_signal optional: the signal number that killed it, else 0.
 * @return KP_OK; KP_EINVAL (NULL p); KP_ESTATE (an attached process: libkpc did not start it
 *   and cannot wait for it; or someone else reaped the command, e.g. waitpid(-1) or SIGCHLD
 *   set to SIG_IGN, so its exit status is lost); KP_EKERNEL.
 * Retries when interrupted by a signal.
 */
KP_API int kp_process_wait(kp_process_t *p, int *exit_code, int *term_signal);

/** The counted process's id (getpid() of the caller for attach with pid 0); -1 if p is NULL. */
KP_API int32_t kp_process_pid(const kp_process_t *p);

/** Number of events in the set; 0 if p is NULL. */
KP_API size_t kp_process_event_count(const kp_process_t *p);

/** Event @p index of the set, or NULL when out of range or p is NULL. Borrowed. */
KP_API const kp_event_t *kp_process_event_at(const kp_process_t *p, size_t index);

/**
 * What event @p index covers, as a kp_process_scope_t; -1 when out of range or p is NULL.
 * Known from the handle's creation; one set may mix scopes (Apple kperf: see the header
 * comment). Thread-safe; sets no error.
 */
KP_API int kp_process_event_scope(const kp_process_t *p, size_t index);

KP_END_DECL

/** @} */
#endif /* KPC_PROCESS_H */
