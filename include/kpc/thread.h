/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/**
 * @file kpc/thread.h
 * @brief kp_thread_t: a set of events counted on the thread that created it.
 * @defgroup kp_thread Thread counters
 *
 * Typical use:
 * @code
 *   const char *names[] = {"cycles", "instructions"};
 *   kp_thread_t *t;
 *   if (kp_thread_new(&t, sampler, names, 2) == KP_OK) {
 *       uint64_t before[2], after[2];
 *       kp_thread_start(t);
 *       kp_thread_sample(t, before, 2);
 *       work();
 *       kp_thread_sample(t, after, 2);
 *       kp_thread_free(t);
 *   }
 * @endcode
 *
 * Values are running totals (never decreasing) of what the creating thread did while the
 * handle was started; stop pauses them and start resumes. Take differences between samples.
 *
 * Thread rules: kp_thread_start, kp_thread_stop, kp_thread_sample and
 * kp_thread_sample_full must be called on the thread that created the handle; from any
 * other thread they return KP_EWRONG_THREAD and do nothing. That includes a thread started
 * after the creator exited, even when the system gives it the creator's pthread_t: a
 * handle belongs to one thread's lifetime, and once that thread is gone it can only be
 * freed. The event accessors and
 * kp_thread_free may be called from any thread (so finalizers can free), but never
 * concurrently with another call on the same handle.
 * @{
 */
#ifndef KPC_THREAD_H
#define KPC_THREAD_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "event.h"
#include "sampler.h"

KP_BEGIN_DECL

/** Opaque per-thread counter set. */
typedef struct kp_thread kp_thread_t;

/**
 * Constructor for kp_thread_t: prepares @p count events for the calling thread. Counting
 * begins at kp_thread_start().
 * @param[out] out receives the handle (NULL on failure); free with kp_thread_free().
 * @param s the sampler; kept alive by the handle. Not consumed.
 * @param events array of @p count event names (generic or native, at most KP_EVENT_NAME_MAX bytes each);
 *   copied.
 * @param count 1 to KP_MAX_EVENTS (32) events.
 * @return KP_OK, or KP_EINVAL (NULL argument, count 0 or too large, a name longer than KP_EVENT_NAME_MAX
 *   bytes, a counter listed twice: by one name twice or by two names of it, such as
 *   "task-clock" and "PERF_COUNT_SW_TASK_CLOCK", "cycles" and "FIXED_CYCLES", "r1" and "r01";
 *   the message names both; checked before availability),
 *   KP_EUNKNOWN_EVENT, KP_EUNAVAILABLE (event not on this machine/OS; message names it),
 *   KP_ECONFLICT (events cannot share the counters; message names them and the counters),
 *   KP_EPERM, KP_EBUSY, KP_EUNSUPPORTED, KP_ESTATE (sampler released), KP_EKERNEL,
 *   KP_EFRAMEWORK, KP_ENOMEM (also: the sampler already holds its 4096 events looked up
 *   by raw code or native name, see kp_sampler_event_find()).
 * Apple: the configuration is system-wide; while another kp_thread_t of a different event
 * set is counting, this returns KP_EBUSY (see docs/apple.md).
 */
KP_API int kp_thread_new(kp_thread_t **out, kp_sampler_t *s, const char *const *events,
                         size_t count);

/** Destructor: stops counting if started and releases the handle. Accepts NULL. Any thread. */
KP_API void kp_thread_free(kp_thread_t *t);

/**
 * Start (or resume) counting. Idempotent: starting a started handle does nothing.
 * @return KP_OK; KP_EINVAL (NULL); KP_EWRONG_THREAD; KP_ESTATE (sampler released);
 *   KP_EBUSY (Apple: another handle counts a different event set, or another tool holds
 *   the counters); KP_EPERM; KP_EUNAVAILABLE (Apple: the kernel's allow-list refused an
 *   event when counting started); KP_EKERNEL.
 */
KP_API int kp_thread_start(kp_thread_t *t);

/**
 * Stop (pause) counting. Idempotent. Totals stay readable with kp_thread_sample().
 * @return KP_OK; KP_EINVAL; KP_EWRONG_THREAD; KP_EKERNEL.
 */
KP_API int kp_thread_stop(kp_thread_t *t);

/**
 * Write the running totals into @p values, in the order the events were given.
 * Allocates nothing on the heap.
 * @param values caller buffer of at least kp_thread_event_count(t) elements.
 * @param count size of @p values in elements.
 * @return KP_OK; KP_EINVAL (NULL); KP_EBUFSIZE (count too small); KP_EWRONG_THREAD;
 *   KP_ESTATE (never started, or sampler released); KP_EKERNEL;
 *   KP_EPARTIAL: the values were written, but the kernel multiplexed the events (more
 *   events than counters, counting this thread's other handles and other programs), so
 *   they cover only part of the time the handle counted: a delta is then short of the
 *   truth. It stays so for the handle's life, as kp_thread_sample_full's @p complete
 *   does: use that call to get the times and scale, or count fewer events at once. KP_OK
 *   therefore always means whole counts. Linux perf_event only; Apple counters are never
 *   multiplexed. On every other failure no value is written.
 */
KP_API int kp_thread_sample(kp_thread_t *t, uint64_t *values, size_t count);

/**
 * kp_thread_sample() plus, per event, whether it ran the whole time.
 * @param complete optional (NULL allowed) buffer of @p count bytes: 1 when the event was
 *   on a counter the whole time it was enabled, 0 when the kernel multiplexed it (its
 *   value then covers only *time_running_ns of *time_enabled_ns).
 * @param time_enabled_ns optional: nanoseconds the events were enabled (0 when the backend
 *   does not measure it; Apple counters are never multiplexed).
 * @param time_running_ns optional: nanoseconds they were on a counter (0 likewise).
 * @return as kp_thread_sample(), except that multiplexed events are KP_OK here: @p complete
 *   and the times say so. Allocates nothing on the heap.
 */
KP_API int kp_thread_sample_full(kp_thread_t *t, uint64_t *values, uint8_t *complete,
                                 size_t count, uint64_t *time_enabled_ns,
                                 uint64_t *time_running_ns);

/**
 * Measures what an empty measured region costs each event, on the calling thread: takes
 * @p rounds pairs of back-to-back kp_thread_sample() calls and writes, per event, the
 * smallest difference seen. The minimum is used because interruptions and cache misses
 * only ever add to the cost; it is the part every measured region pays.
 *
 * Each pair is exactly a caller's empty region: two calls of the public kp_thread_sample
 * with nothing between them but the second call's arguments (even a status check between
 * them would be counted). On counters that count exactly (an emulated PMU), the offset
 * equals the difference such a region shows; code a caller puts between its two samples
 * is the caller's own cost and adds to it.
 *
 * Harnesses subtract offsets[i] from each measured delta when the user asks (clamping at
 * 0). It matters on Apple, where the fixed counters count the kernel's work in every read
 * (about 17,700 instructions per read on an M4): over short regions that inflates
 * instructions and IPC. Not safe to subtract when the events were multiplexed (see
 * kp_thread_sample_full), when the region is shorter than the offset's own variation, or
 * for counts of discrete events (page-faults, context-switches), whose offset is 0 anyway.
 *
 * @param t a started handle (KP_ESTATE if stopped: a stopped handle's totals do not move).
 * @param offsets caller buffer of at least kp_thread_event_count(t) elements.
 * @param count size of @p offsets in elements.
 * @param rounds number of sample pairs; 0 means 100. At most 1000000.
 * @return KP_OK; KP_EINVAL (NULL, rounds too large); KP_EBUFSIZE (count too small);
 *   KP_EWRONG_THREAD; KP_ESTATE (not started, or sampler released); KP_EKERNEL;
 *   KP_EPARTIAL (the events were multiplexed: no offset is meaningful, nothing written).
 * Allocates nothing. Same thread rule as kp_thread_sample().
 */
KP_API int kp_thread_calibrate(kp_thread_t *t, uint64_t *offsets, size_t count,
                               unsigned int rounds);

/** 1 if started, 0 if not (or t is NULL). */
KP_API int kp_thread_is_running(const kp_thread_t *t);

/** Number of events in the set; 0 if t is NULL. */
KP_API size_t kp_thread_event_count(const kp_thread_t *t);

/** Event @p index of the set, or NULL when out of range or t is NULL. Borrowed. */
KP_API const kp_event_t *kp_thread_event_at(const kp_thread_t *t, size_t index);

/**
 * Whether kp_thread_sample(), kp_thread_sample_full() and kp_thread_calibrate() read this
 * handle's counters from user space, without a system call (Linux: each event's
 * perf_event page and arm64's mrs or x86-64's rdpmc), or with one (read()).
 * Even when 1, a sample uses read() whenever the kernel's page says no at that moment
 * (the events were multiplexed, or are off their counters); the values are the same
 * either way. Before the first kp_thread_start() the answer is provisional: that start
 * checks the user-space read against read() and turns it off if they disagree, or if the
 * events are not all on counters then (kp_thread_user_reads_reason() then says so).
 * @return 1 (user space), 0 (system call; kp_thread_user_reads_reason() says why), -1 if
 *   t is NULL. Sets no error.
 * Thread rules as the event accessors: any thread, not concurrently with another call on t.
 */
KP_API int kp_thread_user_reads(const kp_thread_t *t);

/**
 * Why kp_thread_user_reads() is 0, with the fix, e.g. "kernel.perf_user_access=0: run
 * `sudo sysctl -w kernel.perf_user_access=1`", "cap_user_rdpmc=0: ...", "multiplexed: ...",
 * "turned off by KPC_USER_READS=0", "event 'task-clock' is a software event, ...", or on
 * macOS "not available: ..."; "" when it is 1.
 * @return a string owned by t, valid until the next kp_thread_start() or kp_thread_free()
 *   of t; NULL if t is NULL. Sets no error. Thread rules as kp_thread_user_reads().
 */
KP_API const char *kp_thread_user_reads_reason(const kp_thread_t *t);

KP_END_DECL

/** @} */
#endif /* KPC_THREAD_H */
