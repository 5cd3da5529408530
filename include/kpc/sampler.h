/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/**
 * @file kpc/sampler.h
 * @brief kp_sampler_t: a counting session (backend, CPU, event database, counter ownership).
 * @defgroup kp_sampler Sampler
 *
 * Create one sampler per process. It loads a backend, identifies the CPU, builds the event
 * database and, on Apple, takes the hardware counters from the Power Manager (restored when
 * the sampler is released or freed). Events are counted through kp_thread_t handles made
 * from it (kpc/thread.h).
 *
 * Thread rules: every sampler function may be called from any thread, concurrently, except
 * that kp_sampler_free() must not race with another call on the same sampler.
 *
 * Lifetime: a kp_thread_t keeps its sampler's session alive, so kp_sampler_free() and
 * kp_thread_free() may be called in any order (garbage-collected bindings rely on this).
 * @{
 */
#ifndef KPC_SAMPLER_H
#define KPC_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "event.h"

KP_BEGIN_DECL

/** Opaque session handle. */
typedef struct kp_sampler kp_sampler_t;

/** Backend selection. Explicit, stable values. */
typedef enum kp_backend {
    KP_BACKEND_AUTO = 0,       /**< KPC_BACKEND, then the platform's own: on Linux perf_event; on macOS kperf when this process may count with it (root), else recount. */
    KP_BACKEND_KPERF = 1,      /**< Apple kperf.framework / kperfdata.framework, loaded with dlopen. Needs root; every PMU event. */
    KP_BACKEND_PERF_EVENT = 2, /**< Linux perf_event_open. */
    KP_BACKEND_RECOUNT = 3     /**< Apple, no root: the kernel's per-thread counts (thread_selfcounts, macOS 12.3+; P/E split and times 13.0+): cycles, instructions, p-/e-cycles, p-/e-instructions, task-clock, user-time, system-time. Counts include user and kernel mode. */
} kp_backend_t;

/**
 * Whether kp_thread_t samples may read hardware counters from user space
 * (kp_sampler_options_t.user_reads). Explicit, stable values.
 */
typedef enum kp_user_reads {
    KP_USER_READS_AUTO = 0, /**< KPC_USER_READS (0 off, 1 on), then on: user space wherever the kernel allows it. */
    KP_USER_READS_ON = 1,   /**< User space wherever the kernel allows it; KPC_USER_READS is not read. */
    KP_USER_READS_OFF = 2   /**< Always read() (a system call per sample), as before version 2. */
} kp_user_reads_t;

/**
 * Current version of kp_sampler_options_t; pass it to kp_sampler_options_init().
 * Version 2 added user_reads; a version 1 structure ends before it and gets its default.
 */
#define KP_SAMPLER_OPTIONS_VERSION 2

/**
 * Options for kp_sampler_new(). Always initialise with kp_sampler_options_init() so that
 * fields added in later versions get their defaults.
 *
 * Unset fields fall back to the environment, then to the platform default:
 *  - backend: KP_BACKEND_AUTO -> KPC_BACKEND (auto|kperf|perf_event|recount) -> platform
 *    (macOS: kperf if this process may count with it, else recount; see
 *    kp_sampler_backend_reason());
 *  - kperf_path: NULL -> KPC_KPERF_PATH -> /System/Library/PrivateFrameworks/kperf.framework/kperf;
 *  - kperfdata_path: NULL -> KPC_KPERFDATA_PATH -> .../kperfdata.framework/kperfdata.
 *  - the recount backend's libSystem: KPC_LIBSYSTEM_PATH (no option field) -> on macOS
 *    the process's own libSystem; on other systems only the variable (a simulator).
 *  - user_reads (version 2): KP_USER_READS_AUTO -> KPC_USER_READS (0: off, 1: on; other
 *    values KP_EINVAL) -> on. See kp_thread_user_reads().
 * The paths must be absolute when they come from the environment (else KP_EINVAL).
 * A setuid or setgid process ignores all these variables (docs/security.md).
 */
typedef struct kp_sampler_options {
    unsigned int version;       /**< KP_SAMPLER_OPTIONS_VERSION. */
    kp_backend_t backend;       /**< Which backend to load. */
    const char *kperf_path;     /**< Path of the kperf framework binary, or NULL. Copied by kp_sampler_new(). */
    const char *kperfdata_path; /**< Path of the kperfdata framework binary, or NULL. Copied by kp_sampler_new(). */
    kp_user_reads_t user_reads; /**< Version 2: whether samples may read counters from user space (kp_user_reads_t). */
} kp_sampler_options_t;

/**
 * Fill @p opts with defaults for structure version @p version: the fields of that version
 * only (a version 1 structure is smaller; nothing past it is written).
 * @return KP_OK; KP_EINVAL if opts is NULL or version is not one this library knows.
 * Thread-safe.
 */
KP_API int kp_sampler_options_init(kp_sampler_options_t *opts, unsigned int version);

/**
 * Constructor for kp_sampler_t.
 * @param[out] out receives the new sampler; set to NULL on failure. Free with kp_sampler_free().
 * @param opts options, or NULL for all defaults. Not retained.
 * @return KP_OK, or
 *   KP_EINVAL (out NULL, bad options version, bad KPC_BACKEND or KPC_USER_READS value,
 *     bad user_reads, relative KPC_KPERF_PATH or KPC_KPERFDATA_PATH),
 *   KP_EUNSUPPORTED (backend not built for this platform),
 *   KP_ELOAD (framework or symbol missing; the message names it and quotes dlerror()),
 *   KP_ELAYOUT (kperfdata struct layout not recognised),
 *   KP_EFRAMEWORK (kpep database could not be opened; message carries the kpep code),
 *   KP_ENOMEM.
 * Missing permission does NOT fail here: the event database stays readable. Use
 * kp_sampler_access() to ask whether counting will work; kp_thread_new() reports it.
 * Thread-safe.
 */
KP_API int kp_sampler_new(kp_sampler_t **out, const kp_sampler_options_t *opts);

/**
 * Destructor for kp_sampler_t. Accepts NULL. Threads made from the sampler stay usable
 * until they are freed; the session (and, on Apple, the counters) ends with the last handle.
 */
KP_API void kp_sampler_free(kp_sampler_t *s);

/**
 * Give the hardware counters back while keeping the event database readable. Stops any
 * counting of this session's threads in the kernel, restores Apple's force_all_ctrs to the
 * value saved at creation, and makes every later kp_thread_new/start/sample fail with
 * KP_ESTATE. Idempotent.
 * @return KP_OK; KP_EINVAL if s is NULL; KP_EKERNEL if the OS refused to restore a setting
 *         (the release still takes effect).
 */
KP_API int kp_sampler_release(kp_sampler_t *s);

/** The backend in use, as kp_backend_t; -1 if s is NULL. */
KP_API int kp_sampler_backend(const kp_sampler_t *s);

/** Backend name: "kperf", "perf_event" or "recount". Static string; NULL if s is NULL. */
KP_API const char *kp_sampler_backend_name(const kp_sampler_t *s);

/**
 * Why the sampler uses its backend, for a user to read: "named by the caller
 * (kp_sampler_options_t.backend)", "named by KPC_BACKEND", "the platform's own (Linux)",
 * or on macOS with KP_BACKEND_AUTO, e.g. "not root: counting cycles and instructions per
 * thread without root; run with sudo for all events" (recount chosen) or "root: kperf can
 * count every event".
 * @return a string owned by the sampler, valid until kp_sampler_free(); NULL if s is NULL.
 * Thread-safe; sets no error.
 */
KP_API const char *kp_sampler_backend_reason(const kp_sampler_t *s);

/**
 * Whether this sampler's kp_thread_t handles of hardware events will read their counters
 * from user space (kp_thread_user_reads()): the switch (kp_sampler_options_t.user_reads,
 * KPC_USER_READS), the architecture, and what the kernel says for one cycles event opened
 * on the calling thread (asked once, then remembered). A handle may still say no for
 * reasons of its own (software events, multiplexing).
 * @return 1 yes, 0 no (kp_sampler_user_reads_reason() says why), -1 if s is NULL.
 * Thread-safe; sets no error.
 */
KP_API int kp_sampler_user_reads(const kp_sampler_t *s);

/**
 * Why kp_sampler_user_reads() is 0, with the fix (the texts of kp_thread_user_reads_reason(),
 * or "not available: ..." on macOS and where the machine has no hardware counters); ""
 * when it is 1.
 * @return a string owned by the sampler, valid until kp_sampler_free(); NULL if s is NULL.
 * Thread-safe; sets no error.
 */
KP_API const char *kp_sampler_user_reads_reason(const kp_sampler_t *s);

/**
 * The environment variables libkpc ignored because this process is privileged (setuid,
 * setgid, file capabilities; see kp_sampler_options_t), e.g. "KPC_BACKEND, KPC_KPERF_PATH
 * ignored (setuid process)"; "" when none was ignored. Names only variables read so far
 * (by kp_sampler_new()).
 * @return a string owned by libkpc for the calling thread, valid until this thread calls
 *   it again; never NULL. Thread-safe; sets no error.
 */
KP_API const char *kp_ignored_environment(void);

/**
 * Machine-readable CPU / event-database identifier: the kpep database name on Apple
 * ("a14", "as4", ...), "<vendor>-<family>-<model>" on Linux. Owned by the sampler; NULL if
 * s is NULL.
 */
KP_API const char *kp_sampler_cpu_id(const kp_sampler_t *s);

/** Human CPU name: "Apple M1", or the model name from /proc/cpuinfo. Owned by the sampler; NULL if s is NULL. */
KP_API const char *kp_sampler_cpu_name(const kp_sampler_t *s);

/**
 * PMU description: e.g. "Apple PMU (a14, M1 generation)" or "cpu" (Linux sysfs PMU), or
 * "none" when the machine has no usable hardware PMU. Owned by the sampler; NULL if s is NULL.
 */
KP_API const char *kp_sampler_pmu_name(const kp_sampler_t *s);

/**
 * Number of hardware counters, as the OS tells it; never guessed.
 *  - Linux x86: from CPUID (Intel leaf 0xA; AMD: no fixed counters, the kernel's own rule
 *    for the general ones). Linux arm64: the kernel lists the count nowhere but its boot
 *    log, so libkpc asks its group check: the largest group of INST_RETIRED events the
 *    kernel accepts is the event counters, that of CPU_CYCLES adds the cycle counter
 *    (fixed). This opens a few counting events on the calling thread on the first call.
 *  - No hardware PMU: KP_OK with 0 and 0 (there are none).
 *  - Apple: kperfdata's counts for the chip (kperf), 2 fixed (recount: cycles and
 *    instructions, read from the kernel's totals).
 * @param[out] fixed_out fixed-function counters (may be NULL).
 * @param[out] configurable_out programmable counters (may be NULL).
 * @return KP_OK, or KP_EINVAL if s is NULL, or KP_EUNSUPPORTED when the count is not
 *   known (both outputs set to 0, which then means "unknown", not "none"; the message
 *   says why, e.g. perf_event_paranoid forbids the arm64 probe, or a PMU that neither
 *   CPUID nor the probe covers). Added in 0.1: before, 0 and 0 with KP_OK.
 */
KP_API int kp_sampler_counter_count(uint32_t *fixed_out, uint32_t *configurable_out,
                                    const kp_sampler_t *s);

/**
 * Whether this process may count hardware events now.
 * @return KP_OK if it may; otherwise the code kp_thread_new() would return for a hardware
 *   event (KP_EPERM: not root / perf_event_paranoid too strict; KP_EBUSY: another tool holds
 *   the counters; KP_EUNSUPPORTED: no PMU, or for recount a kernel without per-thread
 *   counts (a macOS VM, macOS before 12.3); KP_ESTATE: released) with the detailed message
 *   set. KP_EINVAL if s is NULL. On the recount backend KP_OK means its own events
 *   (cycles, instructions, ...) can be counted; the others need root and kperf
 *   (kp_sampler_backend_reason() says why recount was chosen).
 */
KP_API int kp_sampler_access(const kp_sampler_t *s);

/**
 * Number of events in the database; 0 if s is NULL. It grows when kp_sampler_event_find()
 * or kp_thread_new() adds an event looked up by a name the database does not list, by at
 * most 4096 over the sampler's life.
 */
KP_API size_t kp_sampler_event_count(const kp_sampler_t *s);

/** Event number @p index of the database, or NULL when out of range or s is NULL. Borrowed. */
KP_API const kp_event_t *kp_sampler_event_at(const kp_sampler_t *s, size_t index);

/**
 * Look an event up by generic or native name (on Linux also "r<hex>" raw codes and, when
 * built with libpfm4, PMU event names, which are added to the database). Spellings of one
 * encoding share one entry, named by the first looked up: "r1", "r01" and
 * "r0000000000000001" give the same kp_event_t.
 * @param[out] out receives a borrowed event; NULL on failure.
 * @param name at most KP_EVENT_NAME_MAX (256) bytes; a longer name is refused without being read to its end.
 * @return KP_OK; KP_EINVAL (NULL argument, name longer than KP_EVENT_NAME_MAX bytes); KP_EUNKNOWN_EVENT
 *         (no such name; the message suggests close names, for names up to 64 bytes);
 *         KP_ENOMEM (out of memory, or the sampler already holds 4096 events added this
 *         way: look the name up in a new sampler).
 * Finding an event does not mean it is available: check kp_event_is_available().
 */
KP_API int kp_sampler_event_find(const kp_event_t **out, kp_sampler_t *s, const char *name);

KP_END_DECL

/** @} */
#endif /* KPC_SAMPLER_H */
