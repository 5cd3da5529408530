// Apple's kperf / kperfdata ABI as the simulator reproduces it: constants, error codes and
// the exact 64-bit struct layouts of apple-kperf.md §2.5. Internal to the simulator; the
// layouts are asserted below so a change that moves a field fails to compile.
#ifndef KPSIM_APPLE_ABI_H
#define KPSIM_APPLE_ABI_H

#include <cstddef>
#include <cstdint>

extern "C" {

typedef uint64_t kpc_config_t;

// ---- kpc constants (§2.2) ----
enum : uint32_t {
    KPC_CLASS_FIXED = 0,
    KPC_CLASS_CONFIGURABLE = 1,
    KPC_CLASS_POWER = 2,
    KPC_CLASS_RAWPMU = 3,
    KPC_CLASS_FIXED_MASK = 1u << KPC_CLASS_FIXED,
    KPC_CLASS_CONFIGURABLE_MASK = 1u << KPC_CLASS_CONFIGURABLE,
    KPC_CLASS_POWER_MASK = 1u << KPC_CLASS_POWER,
    KPC_CLASS_RAWPMU_MASK = 1u << KPC_CLASS_RAWPMU,
    KPC_PMU_ERROR = 0,
    KPC_PMU_INTEL_V3 = 1,
    KPC_PMU_ARM_APPLE = 2,
    KPC_PMU_INTEL_V2 = 3,
    KPC_PMU_ARM_V2 = 4,
    KPC_MAX_COUNTERS = 32,
};

// kperf sampler bits and limits (§2.2, XNU osfmk/kperf/action.c, kptimer.c)
enum : uint32_t {
    KPERF_SAMPLER_PMC_THREAD = 1u << 4,
    KPERF_SAMPLER_PMC_CPU = 1u << 5,
    KPERF_ACTION_MAX = 32,
    KPERF_TIMER_MAX = 8,
    KPERF_PET_INACTIVE = 999,  // KPTIMER_PET_INACTIVE
};

// ---- config-word mode bits (§2.6, osfmk/arm64/kpc.c) ----
enum : uint64_t {
    CFGWORD_EL0A32EN = 0x10000,
    CFGWORD_EL0A64EN = 0x20000,
    CFGWORD_EL1EN = 0x40000,
    CFGWORD_EL3EN = 0x80000,
    CFGWORD_ALLMODES = 0xF0000,
};

// ---- kpep error codes (§2.4) ----
enum : int {
    KPEP_ERR_NONE = 0,
    KPEP_ERR_INVALID_ARGUMENT = 1,
    KPEP_ERR_OUT_OF_MEMORY = 2,
    KPEP_ERR_IO = 3,
    KPEP_ERR_BUFFER_TOO_SMALL = 4,
    KPEP_ERR_CUR_SYSTEM_UNKNOWN = 5,
    KPEP_ERR_DB_PATH_INVALID = 6,
    KPEP_ERR_DB_NOT_FOUND = 7,
    KPEP_ERR_DB_ARCH_UNSUPPORTED = 8,
    KPEP_ERR_DB_VERSION_UNSUPPORTED = 9,
    KPEP_ERR_DB_CORRUPT = 10,
    KPEP_ERR_EVENT_NOT_FOUND = 11,
    KPEP_ERR_CONFLICTING_EVENTS = 12,
    KPEP_ERR_COUNTERS_NOT_FORCED = 13,
    KPEP_ERR_EVENT_UNAVAILABLE = 14,
    KPEP_ERR_ERRNO = 15,
};

enum : uint32_t {
    KPEP_ARCH_I386 = 0,
    KPEP_ARCH_X86_64 = 1,
    KPEP_ARCH_ARM = 2,
    KPEP_ARCH_ARM64 = 3,
};

// kpep_db_createx flags. The names come from Apple's XNU tests; the numeric values are
// NOT public (apple-kperf.md §2.3) -- these are the simulator's choice.
enum : uint32_t {
    KPEP_DB_FLAG_PUBLIC_ONLY = 1u << 0,
    KPEP_DB_FLAG_INTERNAL_ONLY = 1u << 1,
};

// ---- kpep_event: 56 bytes (current macOS) ----
struct kpep_event {
    const char *name;         // 0
    const char *description;  // 8
    const char *errata;       // 16
    const char *alias;        // 24
    const char *fallback;     // 32
    uint32_t mask;            // 40  counters_mask
    uint16_t number;          // 44  selector
    uint8_t umask;            // 46
    uint8_t reserved;         // 47
    uint8_t flags;            // 48  bit0 = fixed-counter event
    uint8_t pad[7];           // 49
};

// ---- kpep_event: 48 bytes (older macOS, kpc_demo layout) ----
struct kpep_event_legacy48 {
    const char *name;         // 0
    const char *description;  // 8
    const char *errata;       // 16
    const char *alias;        // 24
    const char *fallback;     // 32
    uint32_t mask;            // 40
    uint8_t number;           // 44
    uint8_t umask;            // 45
    uint8_t reserved;         // 46
    uint8_t is_fixed;         // 47
};

// ---- kpep_db: 152 bytes (current) ----
struct kpep_db {
    const char *name;             // 0
    const char *cpu_id;           // 8
    const char *marketing_name;   // 16
    void *plist_data;             // 24
    void *event_map;              // 32
    kpep_event *event_arr;        // 40 (points at kpep_event_legacy48[] in the legacy db)
    kpep_event **fixed_event_arr; // 48
    void *alias_map;              // 56
    size_t reserved_1;            // 64
    size_t reserved_2;            // 72
    size_t reserved_3;            // 80
    size_t event_count;           // 88
    size_t alias_count;           // 96
    size_t fixed_counter_count;   // 104
    size_t config_counter_count;  // 112
    size_t power_counter_count;   // 120
    uint32_t archtecture;         // 128 (sic)
    uint32_t fixed_counter_bits;  // 132
    uint32_t config_counter_bits; // 136
    uint32_t power_counter_bits;  // 140
    uint32_t create_flags;        // 144
    uint8_t is_internal;          // 148
    uint8_t internal_known;       // 149
    uint8_t pad[2];               // 150
};

// ---- kpep_db: 144 bytes (older macOS): identical up to power_counter_bits ----
struct kpep_db_legacy144 {
    const char *name;
    const char *cpu_id;
    const char *marketing_name;
    void *plist_data;
    void *event_map;
    kpep_event_legacy48 *event_arr;
    kpep_event_legacy48 **fixed_event_arr;
    void *alias_map;
    size_t reserved_1;
    size_t reserved_2;
    size_t reserved_3;
    size_t event_count;
    size_t alias_count;
    size_t fixed_counter_count;
    size_t config_counter_count;
    size_t power_counter_count;
    uint32_t archtecture;
    uint32_t fixed_counter_bits;
    uint32_t config_counter_bits;
    uint32_t power_counter_bits;
};

// ---- kpep_config: 80 bytes ----
struct kpep_config {
    kpep_db *db;                  // 0
    kpep_event **events;          // 8   [counter_count], by event index
    size_t *event_map;            // 16  event index -> absolute counter
    size_t *event_indices;        // 24  counter -> event index (SIZE_MAX = free)
    uint32_t *flags;              // 32  per counter
    uint64_t *kpc_periods;        // 40  per counter
    size_t event_count;           // 48
    size_t counter_count;         // 56
    uint32_t classes;             // 64
    uint32_t occupied_counters;   // 68
    uint8_t force_flags;          // 72  bit0 = kpep_config_force_counters called
    uint8_t pad[7];               // 73
};

}  // extern "C"

static_assert(sizeof(kpep_event) == 56, "kpep_event must be 56 bytes");
static_assert(offsetof(kpep_event, name) == 0, "");
static_assert(offsetof(kpep_event, description) == 8, "");
static_assert(offsetof(kpep_event, errata) == 16, "");
static_assert(offsetof(kpep_event, alias) == 24, "");
static_assert(offsetof(kpep_event, fallback) == 32, "");
static_assert(offsetof(kpep_event, mask) == 40, "");
static_assert(offsetof(kpep_event, number) == 44, "");
static_assert(offsetof(kpep_event, umask) == 46, "");
static_assert(offsetof(kpep_event, flags) == 48, "");

static_assert(sizeof(kpep_event_legacy48) == 48, "legacy kpep_event must be 48 bytes");
static_assert(offsetof(kpep_event_legacy48, mask) == 40, "");
static_assert(offsetof(kpep_event_legacy48, number) == 44, "");
static_assert(offsetof(kpep_event_legacy48, is_fixed) == 47, "");

static_assert(sizeof(kpep_db) == 152, "kpep_db must be 152 bytes");
static_assert(offsetof(kpep_db, cpu_id) == 8, "");
static_assert(offsetof(kpep_db, marketing_name) == 16, "");
static_assert(offsetof(kpep_db, event_arr) == 40, "");
static_assert(offsetof(kpep_db, fixed_event_arr) == 48, "");
static_assert(offsetof(kpep_db, event_count) == 88, "");
static_assert(offsetof(kpep_db, alias_count) == 96, "");
static_assert(offsetof(kpep_db, fixed_counter_count) == 104, "");
static_assert(offsetof(kpep_db, config_counter_count) == 112, "");
static_assert(offsetof(kpep_db, power_counter_count) == 120, "");
static_assert(offsetof(kpep_db, archtecture) == 128, "");
static_assert(offsetof(kpep_db, fixed_counter_bits) == 132, "");
static_assert(offsetof(kpep_db, config_counter_bits) == 136, "");
static_assert(offsetof(kpep_db, power_counter_bits) == 140, "");
static_assert(offsetof(kpep_db, create_flags) == 144, "");
static_assert(offsetof(kpep_db, is_internal) == 148, "");
static_assert(offsetof(kpep_db, internal_known) == 149, "");

static_assert(sizeof(kpep_db_legacy144) == 144, "legacy kpep_db must be 144 bytes");
static_assert(offsetof(kpep_db_legacy144, event_arr) == 40, "");
static_assert(offsetof(kpep_db_legacy144, event_count) == 88, "");
static_assert(offsetof(kpep_db_legacy144, power_counter_bits) == 140, "");

static_assert(sizeof(kpep_config) == 80, "kpep_config must be 80 bytes");
static_assert(offsetof(kpep_config, events) == 8, "");
static_assert(offsetof(kpep_config, event_map) == 16, "");
static_assert(offsetof(kpep_config, event_indices) == 24, "");
static_assert(offsetof(kpep_config, flags) == 32, "");
static_assert(offsetof(kpep_config, kpc_periods) == 40, "");
static_assert(offsetof(kpep_config, event_count) == 48, "");
static_assert(offsetof(kpep_config, counter_count) == 56, "");
static_assert(offsetof(kpep_config, classes) == 64, "");
static_assert(offsetof(kpep_config, occupied_counters) == 68, "");
static_assert(offsetof(kpep_config, force_flags) == 72, "");

#endif  // KPSIM_APPLE_ABI_H
