/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/**
 * @file kpc/event.h
 * @brief Read-only information about one countable event.
 * @defgroup kp_event Events
 *
 * A kp_event_t is a borrowed object: it belongs to the sampler's event database and stays
 * valid until the last handle of that sampler (the sampler and every kp_thread_t created
 * from it) is freed. Never free it. Every accessor is thread-safe and accepts NULL
 * (returning NULL, 0 or -1 as stated), and none of them sets the last error.
 *
 * Generic events (cycles, instructions, task-clock, ...; see docs/events.md) mean the same
 * thing on every backend. Native events carry the backend's own name (a kpep name such as
 * L1D_CACHE_MISS_LD_NONSPEC on Apple, a raw "r<hex>" code or a libpfm4 name on Linux).
 * @{
 */
#ifndef KPC_EVENT_H
#define KPC_EVENT_H

#include <stdint.h>
#include "export.h"

KP_BEGIN_DECL

/** Most events one kp_thread_t or kp_process_t counts (kp_thread_new(), kp_process_spawn(), ...). */
#define KP_MAX_EVENTS 32

/** Longest event name accepted, in bytes without the terminating NUL; longer names are
 *  KP_EINVAL wherever a name is looked up. */
#define KP_EVENT_NAME_MAX 256

/** Opaque, borrowed event description. */
typedef struct kp_event kp_event_t;

/** Which kind of counter an event needs. Explicit, stable values. */
typedef enum kp_event_kind {
    KP_EVENT_FIXED = 0,        /**< A fixed-function hardware counter (Apple: cycles, instructions). */
    KP_EVENT_CONFIGURABLE = 1, /**< A programmable hardware counter. */
    KP_EVENT_SOFTWARE = 2      /**< Counted by the OS kernel (task-clock, page-faults, ...). */
} kp_event_kind_t;

/** The unit of an event's count. Explicit, stable values; new units are added at the end. */
typedef enum kp_event_unit {
    KP_EVENT_UNIT_COUNT = 0,       /**< A number of occurrences (cycles, instructions, page faults, ...). */
    KP_EVENT_UNIT_NANOSECONDS = 1  /**< Time in nanoseconds (task-clock, cpu-clock, recount's user-time, ...). */
} kp_event_unit_t;

/** Name the event was looked up by: the generic name for generic events. NULL if e is NULL. */
KP_API const char *kp_event_name(const kp_event_t *e);

/**
 * The backend's own name for the event: e.g. "FIXED_CYCLES" (kperf) or
 * "PERF_COUNT_HW_CPU_CYCLES" (perf_event). For an unavailable generic event this is the
 * first native candidate, or "" when the backend has none. NULL if e is NULL.
 */
KP_API const char *kp_event_native_name(const kp_event_t *e);

/** One-line description; "" when the backend has none. NULL if e is NULL. */
KP_API const char *kp_event_description(const kp_event_t *e);

/** The kind of counter, as kp_event_kind_t; -1 if e is NULL. */
KP_API int kp_event_kind(const kp_event_t *e);

/**
 * The unit of the event's count, as kp_event_unit_t: KP_EVENT_UNIT_NANOSECONDS for the
 * events that count time (the clocks task-clock and cpu-clock on every backend, their
 * perf_event names, recount's user-time and system-time), KP_EVENT_UNIT_COUNT otherwise;
 * -1 if e is NULL. Fixed for the event's life, also when it is unavailable.
 * Thread-safe; does not set the last error.
 */
KP_API int kp_event_unit(const kp_event_t *e);

/** 1 if this is one of libkpc's generic events, 0 if native (or e is NULL). */
KP_API int kp_event_is_generic(const kp_event_t *e);

/**
 * 1 if the event can be counted on this machine, 0 if not (or e is NULL). Availability is
 * what the hardware and OS offer; permission is separate (see kp_sampler_access()).
 */
KP_API int kp_event_is_available(const kp_event_t *e);

/** Why the event is unavailable, with what to do; "" when available. NULL if e is NULL.
 *  It does not repeat the event's name, so events unavailable for one cause share one text. */
KP_API const char *kp_event_unavailable_reason(const kp_event_t *e);

/** Apple kpep alias (e.g. "Cycles"); NULL when there is none or e is NULL. */
KP_API const char *kp_event_alias(const kp_event_t *e);

/** Apple kpep errata note; NULL when there is none or e is NULL. */
KP_API const char *kp_event_errata(const kp_event_t *e);

/** Apple kpep fallback event name (e.g. "INST_ALL"); NULL when there is none or e is NULL. */
KP_API const char *kp_event_fallback(const kp_event_t *e);

/**
 * Bitmap of the absolute hardware counters the event may use (bit 0 = counter 0);
 * 0 when the backend does not say (perf_event, software events) or e is NULL.
 */
KP_API uint32_t kp_event_counters_mask(const kp_event_t *e);

/**
 * Backend encoding of the event: the kpep selector number on Apple, the perf_event
 * attr.config on Linux. 0 if e is NULL.
 */
KP_API uint64_t kp_event_selector(const kp_event_t *e);

/** Index of the fixed counter the event must use, or -1 (configurable, software, NULL). */
KP_API int kp_event_fixed_counter(const kp_event_t *e);

/**
 * Whether the event's count includes work done in kernel mode: 1 if it does, 0 if it
 * counts user mode only, -1 if e is NULL.
 *
 * - Apple (kperf): the fixed counters (FIXED_CYCLES, FIXED_INSTRUCTIONS, and the generic
 *   cycles and instructions mapped to them) count every mode: 1. They therefore also count
 *   the kernel's own work inside each kpc_get_thread_counters call (about 17,700
 *   instructions per read on an M4, published), so FIXED_INSTRUCTIONS and INST_ALL differ
 *   over the same interval. Configurable events are programmed for user mode, the only
 *   mode a release macOS kernel allows them: 0.
 * - Linux (perf_event): hardware events are opened with exclude_kernel: 0. Software events
 *   (task-clock, page-faults, ...) are counted by the kernel and include kernel mode: 1,
 *   unless perf_event_paranoid >= 2 forces them to user mode (docs/events.md).
 *
 * Thread-safe; does not set the last error.
 */
KP_API int kp_event_counts_kernel(const kp_event_t *e);

KP_END_DECL

/** @} */
#endif /* KPC_EVENT_H */
