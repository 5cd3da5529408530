/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/**
 * @file kpc/kperf_raw.h
 * @brief Raw layer of the Apple kperf backend: the frameworks' types, constants, struct
 *        layouts and the table of loaded function pointers.
 * @defgroup kp_kperf_raw Apple kperf raw layer
 *
 * For power users who need something libkpc does not wrap (kperf sampling timers, the
 * kpep configuration API, per-CPU counters). Everything here describes Apple's *private*
 * kperf.framework and kperfdata.framework, whose ABI Apple does not document or promise;
 * the layouts below are the ones reverse-engineered by the community (darwin-kperf-sys,
 * ibireme's kpc_demo) and are pinned by static assertions when compiled as C11 or C++11.
 *
 * Names are prefixed (kp_kpep_db_t rather than kpep_db) so this header never clashes with
 * code that declares Apple's names itself; the function-pointer members keep Apple's
 * symbol names exactly.
 *
 * This header is not included by kpc/kpc.h: include it explicitly.
 *
 * Thread rules: the kpc_* calls change system-wide kernel state (configuration, counting)
 * that libkpc also drives. Calling kpc_set_config / kpc_set_counting /
 * kpc_set_thread_counting / kpc_force_all_ctrs_set yourself while a libkpc kp_thread_t
 * is counting breaks libkpc's bookkeeping; see docs/apple.md.
 * @{
 */
#ifndef KPC_KPERF_RAW_H
#define KPC_KPERF_RAW_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif
#include "errors.h"
#include "export.h"
#include "sampler.h"

KP_BEGIN_DECL

/* ---------------------------------------------------------------------------------------
 * kperf.framework constants
 * ------------------------------------------------------------------------------------- */

/** One kpc configuration word (event selector plus mode bits). Apple: kpc_config_t. */
typedef uint64_t kp_kpc_config_t;

/** kpc counter classes (Apple: KPC_CLASS_*). */
#define KP_KPC_CLASS_FIXED 0
#define KP_KPC_CLASS_CONFIGURABLE 1
#define KP_KPC_CLASS_POWER 2
#define KP_KPC_CLASS_RAWPMU 3
/** kpc class masks, as passed to kpc_set_counting() and friends (Apple: KPC_CLASS_*_MASK). */
#define KP_KPC_CLASS_FIXED_MASK (1u << KP_KPC_CLASS_FIXED)
#define KP_KPC_CLASS_CONFIGURABLE_MASK (1u << KP_KPC_CLASS_CONFIGURABLE)
#define KP_KPC_CLASS_POWER_MASK (1u << KP_KPC_CLASS_POWER)
#define KP_KPC_CLASS_RAWPMU_MASK (1u << KP_KPC_CLASS_RAWPMU)

/** kpc_pmu_version() results (Apple: KPC_PMU_*). */
#define KP_KPC_PMU_ERROR 0
#define KP_KPC_PMU_INTEL_V3 1
#define KP_KPC_PMU_ARM_APPLE 2
#define KP_KPC_PMU_INTEL_V2 3
#define KP_KPC_PMU_ARM_V2 4

/** Largest number of counters any kpc call reports; size counter buffers with it. */
#define KP_KPC_MAX_COUNTERS 32

/** Mode bits of an arm64 configuration word (XNU osfmk/arm64/kpc.c). */
#define KP_KPC_CFG_EL0A32EN 0x10000u
#define KP_KPC_CFG_EL0A64EN 0x20000u
#define KP_KPC_CFG_EL1EN 0x40000u
#define KP_KPC_CFG_EL3EN 0x80000u

/** kperf sampler bits for kperf_action_samplers_set() (Apple: KPERF_SAMPLER_*). */
#define KP_KPERF_SAMPLER_TH_INFO (1u << 0)
#define KP_KPERF_SAMPLER_TH_SNAPSHOT (1u << 1)
#define KP_KPERF_SAMPLER_KSTACK (1u << 2)
#define KP_KPERF_SAMPLER_USTACK (1u << 3)
#define KP_KPERF_SAMPLER_PMC_THREAD (1u << 4)
#define KP_KPERF_SAMPLER_PMC_CPU (1u << 5)
#define KP_KPERF_SAMPLER_PMC_CONFIG (1u << 6)
#define KP_KPERF_SAMPLER_MEMINFO (1u << 7)
#define KP_KPERF_SAMPLER_TH_SCHEDULING (1u << 8)
#define KP_KPERF_SAMPLER_TH_DISPATCH (1u << 9)
#define KP_KPERF_SAMPLER_TK_SNAPSHOT (1u << 10)
#define KP_KPERF_SAMPLER_SYS_MEM (1u << 11)
#define KP_KPERF_SAMPLER_TH_INSCYC (1u << 12)
#define KP_KPERF_SAMPLER_TK_INFO (1u << 13)

/** Limits of the kperf action and timer tables. */
#define KP_KPERF_ACTION_MAX 32
#define KP_KPERF_TIMER_MAX 8

/* ---------------------------------------------------------------------------------------
 * kperfdata.framework constants
 * ------------------------------------------------------------------------------------- */

/** kpep error codes returned by the kpep_* functions (0 = success). */
typedef enum kp_kpep_error {
    KP_KPEP_ERR_NONE = 0,
    KP_KPEP_ERR_INVALID_ARGUMENT = 1,
    KP_KPEP_ERR_OUT_OF_MEMORY = 2,
    KP_KPEP_ERR_IO = 3,
    KP_KPEP_ERR_BUFFER_TOO_SMALL = 4,
    KP_KPEP_ERR_CUR_SYSTEM_UNKNOWN = 5,
    KP_KPEP_ERR_DB_PATH_INVALID = 6,
    KP_KPEP_ERR_DB_NOT_FOUND = 7,
    KP_KPEP_ERR_DB_ARCH_UNSUPPORTED = 8,
    KP_KPEP_ERR_DB_VERSION_UNSUPPORTED = 9,
    KP_KPEP_ERR_DB_CORRUPT = 10,
    KP_KPEP_ERR_EVENT_NOT_FOUND = 11,
    KP_KPEP_ERR_CONFLICTING_EVENTS = 12, /**< add_event: *err receives a bitmap of conflicting events. */
    KP_KPEP_ERR_COUNTERS_NOT_FORCED = 13,
    KP_KPEP_ERR_EVENT_UNAVAILABLE = 14,
    KP_KPEP_ERR_ERRNO = 15               /**< check errno */
} kp_kpep_error_t;

/** kpep_db.architecture values (Apple: KPEP_ARCH_*). */
#define KP_KPEP_ARCH_I386 0
#define KP_KPEP_ARCH_X86_64 1
#define KP_KPEP_ARCH_ARM 2
#define KP_KPEP_ARCH_ARM64 3

/** kpep_config_add_event() flag values. */
#define KP_KPEP_ADD_ALL_MODES 0u  /**< count user and kernel mode (kernel refused on release kernels) */
#define KP_KPEP_ADD_USER_ONLY 1u  /**< count user space only (what libkpc uses for configurable counters; fixed ones get KP_KPEP_ADD_ALL_MODES) */

/** kpep_event.flags bit 0 (56-byte layout): the event must use a fixed counter. */
#define KP_KPEP_EVENT_FLAG_FIXED 1u

/* ---------------------------------------------------------------------------------------
 * kperfdata.framework struct layouts (64-bit)
 * ------------------------------------------------------------------------------------- */

/**
 * One event of a kpep database, current layout (56 bytes). Read fields only after
 * checking which layout the running framework uses (libkpc detects it from the address
 * gaps between events); prefer kpep_event_name / _alias / _description.
 */
typedef struct kp_kpep_event {
    const char *name;        /**< e.g. "INST_ALL" */
    const char *description; /**< one line of text */
    const char *errata;      /**< usually NULL */
    const char *alias;       /**< e.g. "Cycles", or NULL */
    const char *fallback;    /**< event to use when the fixed counter is busy, or NULL */
    uint32_t mask;           /**< counters mask: absolute counter bits the event may use (0: any configurable) */
    uint16_t number;         /**< event selector */
    uint8_t umask;           /**< Intel unit mask; 0 on arm64 */
    uint8_t reserved0;
    uint8_t flags;           /**< bit 0: KP_KPEP_EVENT_FLAG_FIXED */
    uint8_t reserved1[7];
} kp_kpep_event_t;

/** kpep_event as older macOS releases lay it out (48 bytes, 8-bit selector). */
typedef struct kp_kpep_event_legacy {
    const char *name;
    const char *description;
    const char *errata;
    const char *alias;
    const char *fallback;
    uint32_t mask;
    uint8_t number;          /**< event selector (8 bits in this layout) */
    uint8_t umask;
    uint8_t reserved;
    uint8_t is_fixed;        /**< non-zero: must use a fixed counter */
} kp_kpep_event_legacy_t;

/**
 * A kpep event database (152 bytes; older releases end after power_counter_bits, 144
 * bytes). The CFDictionary members are opaque here.
 */
typedef struct kp_kpep_db {
    const char *name;            /**< database name, e.g. "a14", "as4" */
    const char *cpu_id;          /**< e.g. "cpu_100000c_2_1b588bb3" */
    const char *marketing_name;  /**< e.g. "Apple A14/M1" */
    void *plist_data;            /**< CFDataRef, created lazily */
    void *event_map;             /**< CFDictionary: name -> kpep_event* */
    kp_kpep_event_t *event_arr;  /**< contiguous array of event_count events (stride: see above) */
    kp_kpep_event_t **fixed_event_arr; /**< fixed_counter_count pointers */
    void *alias_map;             /**< CFDictionary: alias -> kpep_event* */
    size_t reserved_1;
    size_t reserved_2;
    size_t reserved_3;
    size_t event_count;
    size_t alias_count;
    size_t fixed_counter_count;
    size_t config_counter_count;
    size_t power_counter_count;
    uint32_t architecture;       /**< KP_KPEP_ARCH_* (Apple spells the field "archtecture") */
    uint32_t fixed_counter_bits;
    uint32_t config_counter_bits;
    uint32_t power_counter_bits;
    uint32_t create_flags;       /**< flags given to kpep_db_createx (absent in the 144-byte layout) */
    uint8_t is_internal;
    uint8_t internal_known;
    uint8_t reserved_4[2];
} kp_kpep_db_t;

/** A kpep configuration under construction (80 bytes). */
typedef struct kp_kpep_config {
    kp_kpep_db_t *db;
    kp_kpep_event_t **events;    /**< [counter_count], NULL where unused */
    size_t *event_map;           /**< event index -> counter index */
    size_t *event_indices;       /**< counter index -> event index, (size_t)-1 where unused */
    uint32_t *flags;             /**< per counter */
    uint64_t *kpc_periods;       /**< per counter */
    size_t event_count;
    size_t counter_count;
    uint32_t classes;            /**< KP_KPC_CLASS_*_MASK bits the configuration needs */
    uint32_t occupied_counters;  /**< bitmap of used counters */
    uint8_t force_flags;         /**< bit 0: kpep_config_force_counters() was called */
    uint8_t reserved[7];
} kp_kpep_config_t;

/* Layout pins. Only where static assertions exist (C11, C++11) and for 64-bit pointers:
 * a C99 compile of this header must still work. */
#if defined(__LP64__) || defined(_WIN64)
#  if defined(__cplusplus) && __cplusplus >= 201103L
#    define KP_KPERF_RAW_ASSERT(cond, msg) static_assert(cond, msg)
#  elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#    define KP_KPERF_RAW_ASSERT(cond, msg) _Static_assert(cond, msg)
#  endif
#endif
#ifdef KP_KPERF_RAW_ASSERT
KP_KPERF_RAW_ASSERT(sizeof(kp_kpep_event_t) == 56, "kpep_event is 56 bytes");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_event_t, alias) == 24, "kpep_event.alias at 24");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_event_t, fallback) == 32, "kpep_event.fallback at 32");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_event_t, mask) == 40, "kpep_event.mask at 40");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_event_t, number) == 44, "kpep_event.number at 44");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_event_t, umask) == 46, "kpep_event.umask at 46");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_event_t, flags) == 48, "kpep_event.flags at 48");
KP_KPERF_RAW_ASSERT(sizeof(kp_kpep_event_legacy_t) == 48, "legacy kpep_event is 48 bytes");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_event_legacy_t, number) == 44, "legacy number at 44");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_event_legacy_t, is_fixed) == 47, "legacy is_fixed at 47");
KP_KPERF_RAW_ASSERT(sizeof(kp_kpep_db_t) == 152, "kpep_db is 152 bytes");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_db_t, event_arr) == 40, "kpep_db.event_arr at 40");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_db_t, event_count) == 88, "kpep_db.event_count at 88");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_db_t, fixed_counter_count) == 104, "kpep_db.fixed_counter_count at 104");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_db_t, architecture) == 128, "kpep_db.architecture at 128");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_db_t, create_flags) == 144, "kpep_db.create_flags at 144");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_db_t, is_internal) == 148, "kpep_db.is_internal at 148");
KP_KPERF_RAW_ASSERT(sizeof(kp_kpep_config_t) == 80, "kpep_config is 80 bytes");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_config_t, event_count) == 48, "kpep_config.event_count at 48");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_config_t, classes) == 64, "kpep_config.classes at 64");
KP_KPERF_RAW_ASSERT(offsetof(kp_kpep_config_t, force_flags) == 72, "kpep_config.force_flags at 72");
#  undef KP_KPERF_RAW_ASSERT
#endif

/* ---------------------------------------------------------------------------------------
 * The function-pointer table
 * ------------------------------------------------------------------------------------- */

/**
 * Every kperf.framework and kperfdata.framework function libkpc resolves, with Apple's
 * signatures. kpc_* functions return 0 on success and set errno on failure (unless they
 * return a value); kpep_* functions return a kp_kpep_error_t.
 *
 * Members that libkpc treats as optional may be NULL when the loaded framework does not
 * export them: every kperf_* member, and kpep_db_createx, kpep_config_remove_event,
 * kpep_config_events_count, kpep_config_events, kpep_db_name, kpep_db_aliases_count,
 * kpep_db_aliases, kpep_event_name, kpep_event_alias, kpep_event_description.
 * Every kpc_* member and the remaining kpep_* members are never NULL.
 *
 * New members are only ever appended; `size` tells how many bytes the library filled.
 */
typedef struct kp_kperf_api {
    size_t size; /**< sizeof(kp_kperf_api_t) as the library was built; check before reading members added later */

    /* kperf.framework: kpc (counters) */
    int (*kpc_cpu_string)(char *buf, size_t buf_size);
    uint32_t (*kpc_pmu_version)(void);
    uint32_t (*kpc_get_counting)(void);
    int (*kpc_set_counting)(uint32_t classes);
    uint32_t (*kpc_get_thread_counting)(void);
    int (*kpc_set_thread_counting)(uint32_t classes);
    uint32_t (*kpc_get_config_count)(uint32_t classes);
    uint32_t (*kpc_get_counter_count)(uint32_t classes);
    int (*kpc_get_config)(uint32_t classes, kp_kpc_config_t *config);
    int (*kpc_set_config)(uint32_t classes, kp_kpc_config_t *config);
    int (*kpc_get_cpu_counters)(bool all_cpus, uint32_t classes, int *curcpu, uint64_t *buf);
    int (*kpc_get_thread_counters)(uint32_t tid, uint32_t buf_count, uint64_t *buf);
    int (*kpc_force_all_ctrs_set)(int val);
    int (*kpc_force_all_ctrs_get)(int *val_out);

    /* kperf.framework: kperf (sampling); optional */
    int (*kperf_action_count_set)(uint32_t count);
    int (*kperf_action_count_get)(uint32_t *count);
    int (*kperf_action_samplers_set)(uint32_t actionid, uint32_t sample);
    int (*kperf_action_samplers_get)(uint32_t actionid, uint32_t *sample);
    int (*kperf_action_filter_set_by_task)(uint32_t actionid, int32_t port);
    int (*kperf_action_filter_set_by_pid)(uint32_t actionid, int32_t pid);
    int (*kperf_timer_count_set)(uint32_t count);
    int (*kperf_timer_count_get)(uint32_t *count);
    int (*kperf_timer_period_set)(uint32_t actionid, uint64_t tick);
    int (*kperf_timer_period_get)(uint32_t actionid, uint64_t *tick);
    int (*kperf_timer_action_set)(uint32_t actionid, uint32_t timerid);
    int (*kperf_timer_action_get)(uint32_t actionid, uint32_t *timerid);
    int (*kperf_timer_pet_set)(uint32_t timerid);
    int (*kperf_timer_pet_get)(uint32_t *timerid);
    int (*kperf_sample_set)(uint32_t enabled);
    int (*kperf_sample_get)(uint32_t *enabled);
    int (*kperf_reset)(void);
    uint64_t (*kperf_ns_to_ticks)(uint64_t ns);
    uint64_t (*kperf_ticks_to_ns)(uint64_t ticks);
    uint64_t (*kperf_tick_frequency)(void);

    /* kperfdata.framework: configurations */
    int (*kpep_config_create)(kp_kpep_db_t *db, kp_kpep_config_t **cfg_ptr);
    void (*kpep_config_free)(kp_kpep_config_t *cfg);
    int (*kpep_config_add_event)(kp_kpep_config_t *cfg, kp_kpep_event_t **ev_ptr, uint32_t flag,
                                 uint32_t *err);
    int (*kpep_config_remove_event)(kp_kpep_config_t *cfg, size_t idx);
    int (*kpep_config_force_counters)(kp_kpep_config_t *cfg);
    int (*kpep_config_events_count)(kp_kpep_config_t *cfg, size_t *count_ptr);
    int (*kpep_config_events)(kp_kpep_config_t *cfg, kp_kpep_event_t **buf, size_t buf_size);
    int (*kpep_config_kpc)(kp_kpep_config_t *cfg, kp_kpc_config_t *buf, size_t buf_size);
    int (*kpep_config_kpc_count)(kp_kpep_config_t *cfg, size_t *count_ptr);
    int (*kpep_config_kpc_classes)(kp_kpep_config_t *cfg, uint32_t *classes_ptr);
    int (*kpep_config_kpc_map)(kp_kpep_config_t *cfg, size_t *buf, size_t buf_size);

    /* kperfdata.framework: databases and events */
    int (*kpep_db_create)(const char *name, kp_kpep_db_t **db_ptr);
    void (*kpep_db_free)(kp_kpep_db_t *db);
    int (*kpep_db_name)(kp_kpep_db_t *db, const char **name);
    int (*kpep_db_aliases_count)(kp_kpep_db_t *db, size_t *count);
    int (*kpep_db_aliases)(kp_kpep_db_t *db, const char **buf, size_t buf_size);
    int (*kpep_db_counters_count)(kp_kpep_db_t *db, uint8_t classes, size_t *count);
    int (*kpep_db_events_count)(kp_kpep_db_t *db, size_t *count);
    int (*kpep_db_events)(kp_kpep_db_t *db, kp_kpep_event_t **buf, size_t buf_size);
    int (*kpep_db_event)(kp_kpep_db_t *db, const char *name, kp_kpep_event_t **ev_ptr);
    int (*kpep_event_name)(kp_kpep_event_t *ev, const char **name_ptr);
    int (*kpep_event_alias)(kp_kpep_event_t *ev, const char **alias_ptr);
    int (*kpep_event_description)(kp_kpep_event_t *ev, const char **str_ptr);

    /* kperfdata.framework: optional extras */
    int (*kpep_db_createx)(const char *name, uint32_t flags, kp_kpep_db_t **db_ptr); /**< signature as used by Apple's XNU tests (unconfirmed) */
} kp_kperf_api_t;

/**
 * The framework functions a sampler on the kperf backend loaded.
 *
 * @param[out] out receives a borrowed table (NULL on failure). It stays valid until the
 *   last handle of @p s (the sampler and every kp_thread_t made from it) is freed; do not
 *   free it. Calls through it act on the same frameworks and kernel state libkpc uses.
 * @param s the sampler.
 * @return KP_OK; KP_EINVAL (out or s NULL); KP_EUNSUPPORTED when @p s does not use the
 *   kperf backend (the message names the backend it uses).
 * Thread-safe. The table itself is read-only.
 */
KP_API int kp_sampler_kperf_api(const kp_kperf_api_t **out, const kp_sampler_t *s);

/**
 * What the kperf backend found when it opened the frameworks: for bug reports (kpc check)
 * and for comparing a Mac with libkpc's assumptions. Strings are borrowed from the sampler
 * and stay valid until its last handle is freed.
 */
typedef struct kp_kperf_info {
    const char *db_name;        /**< the kpep_db struct's name field, e.g. "a14", "as4" */
    const char *db_api_name;    /**< what kpep_db_name() returned ("Apple A14/M1" is reported
                                     on real Macs); "" when the framework lacks it */
    const char *marketing_name; /**< the struct's marketing_name; "" unless the layout was validated */
    size_t event_stride;        /**< kpep_event size detected at run time: 56 or 48 */
    int chip_known;             /**< 1 when libkpc knows the chip's event generation; 0 for an
                                     unknown (future) chip, whose generic events are resolved
                                     by trying every candidate name the database has */
    uint32_t configurable_before_force; /**< kpc_get_counter_count(CONFIGURABLE) before the
                                             sampler forced all counters; 0 if it could not be read */
    uint32_t configurable_after_force;  /**< the same after forcing (what libkpc uses); 0 if the
                                             sampler could not force them (no root) */
} kp_kperf_info_t;

/**
 * Fills @p out with what the kperf backend of @p s found.
 * @return KP_OK; KP_EINVAL (out or s NULL); KP_EUNSUPPORTED when @p s does not use the
 *   kperf backend. Thread-safe.
 */
KP_API int kp_sampler_kperf_info(kp_kperf_info_t *out, const kp_sampler_t *s);

KP_END_DECL

/** @} */
#endif /* KPC_KPERF_RAW_H */
