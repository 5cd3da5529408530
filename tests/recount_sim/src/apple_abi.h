// Apple's recount ABI as the simulator reproduces it (apple-recount.md §1.1, §1.2, §2, §3):
// thread_selfcounts kinds and structs, PROC_PIDTHREADCOUNTS, the rusage_info_v0..v6 layout.
// Internal to the simulator; the static_asserts pin every offset the reference gives.
#ifndef RCSIM_APPLE_ABI_H
#define RCSIM_APPLE_ABI_H

#include <cstddef>
#include <cstdint>

namespace rcsim {

// thread_selfcounts_kind_t (bsd/sys/resource_private.h).
enum : uint32_t {
    THSC_CPI = 1,
    THSC_CPI_PER_PERF_LEVEL = 2,
    THSC_TIME_CPI = 3,
    THSC_TIME_CPI_PER_PERF_LEVEL = 4,
    THSC_TIME_ENERGY_CPI = 5,
    THSC_TIME_ENERGY_CPI_PER_PERF_LEVEL = 6,
};

// The three thsc element structs and proc_threadcounts_data are all prefixes of these five
// words, in this order, so one array serialises every one of them.
struct usage_words {
    uint64_t instructions;
    uint64_t cycles;
    uint64_t user_time_mach;
    uint64_t system_time_mach;
    uint64_t energy_nj;
};
static_assert(sizeof(usage_words) == 40, "proc_threadcounts_data / thsc_time_energy_cpi size");
static_assert(offsetof(usage_words, user_time_mach) == 16, "ttci_user_time_mach");
static_assert(offsetof(usage_words, energy_nj) == 32, "ttec_energy_nj");

constexpr size_t kThscCpiSize = 16;            // struct thsc_cpi
constexpr size_t kThscTimeCpiSize = 32;        // struct thsc_time_cpi
constexpr size_t kThscTimeEnergyCpiSize = 40;  // struct thsc_time_energy_cpi

// proc_pidinfo flavor and its header (bsd/sys/proc_info_private.h).
constexpr int PROC_PIDTHREADCOUNTS = 34;
struct proc_threadcounts_header {
    uint16_t ptc_len;
    uint16_t ptc_reserved0;
    uint32_t ptc_reserved1;
};
static_assert(sizeof(proc_threadcounts_header) == 8, "ptc_counts starts at offset 8");

// struct rusage_info_v6 (bsd/sys/resource.h, xnu-11417); v0..v5 are its prefixes.
struct rusage_info_v6 {
    uint8_t ri_uuid[16];
    uint64_t ri_user_time;
    uint64_t ri_system_time;
    uint64_t ri_pkg_idle_wkups;
    uint64_t ri_interrupt_wkups;
    uint64_t ri_pageins;
    uint64_t ri_wired_size;
    uint64_t ri_resident_size;
    uint64_t ri_phys_footprint;
    uint64_t ri_proc_start_abstime;
    uint64_t ri_proc_exit_abstime;
    // v1
    uint64_t ri_child_user_time;
    uint64_t ri_child_system_time;
    uint64_t ri_child_pkg_idle_wkups;
    uint64_t ri_child_interrupt_wkups;
    uint64_t ri_child_pageins;
    uint64_t ri_child_elapsed_abstime;
    // v2
    uint64_t ri_diskio_bytesread;
    uint64_t ri_diskio_byteswritten;
    // v3
    uint64_t ri_cpu_time_qos_default;
    uint64_t ri_cpu_time_qos_maintenance;
    uint64_t ri_cpu_time_qos_background;
    uint64_t ri_cpu_time_qos_utility;
    uint64_t ri_cpu_time_qos_legacy;
    uint64_t ri_cpu_time_qos_user_initiated;
    uint64_t ri_cpu_time_qos_user_interactive;
    uint64_t ri_billed_system_time;
    uint64_t ri_serviced_system_time;
    // v4
    uint64_t ri_logical_writes;
    uint64_t ri_lifetime_max_phys_footprint;
    uint64_t ri_instructions;
    uint64_t ri_cycles;
    uint64_t ri_billed_energy;
    uint64_t ri_serviced_energy;
    uint64_t ri_interval_max_phys_footprint;
    uint64_t ri_runnable_time;
    // v5
    uint64_t ri_flags;
    // v6
    uint64_t ri_user_ptime;
    uint64_t ri_system_ptime;
    uint64_t ri_pinstructions;
    uint64_t ri_pcycles;
    uint64_t ri_energy_nj;
    uint64_t ri_penergy_nj;
    uint64_t ri_secure_time_in_system;   // 14.4+, reserved before
    uint64_t ri_secure_ptime_in_system;  // 14.4+, reserved before
    uint64_t ri_neural_footprint;        // 15.0+, reserved before
    uint64_t ri_lifetime_max_neural_footprint;
    uint64_t ri_interval_max_neural_footprint;
    uint64_t ri_reserved[9];
};
static_assert(offsetof(rusage_info_v6, ri_user_time) == 16, "");
static_assert(offsetof(rusage_info_v6, ri_system_time) == 24, "");
static_assert(offsetof(rusage_info_v6, ri_proc_start_abstime) == 80, "");
static_assert(offsetof(rusage_info_v6, ri_proc_exit_abstime) == 88, "");
static_assert(offsetof(rusage_info_v6, ri_instructions) == 248, "");
static_assert(offsetof(rusage_info_v6, ri_cycles) == 256, "");
static_assert(offsetof(rusage_info_v6, ri_flags) == 296, "");
static_assert(offsetof(rusage_info_v6, ri_user_ptime) == 304, "");
static_assert(offsetof(rusage_info_v6, ri_system_ptime) == 312, "");
static_assert(offsetof(rusage_info_v6, ri_pinstructions) == 320, "");
static_assert(offsetof(rusage_info_v6, ri_pcycles) == 328, "");
static_assert(offsetof(rusage_info_v6, ri_energy_nj) == 336, "");
static_assert(offsetof(rusage_info_v6, ri_penergy_nj) == 344, "");
static_assert(offsetof(rusage_info_v6, ri_secure_time_in_system) == 352, "");
static_assert(offsetof(rusage_info_v6, ri_neural_footprint) == 368, "");
static_assert(offsetof(rusage_info_v6, ri_reserved) == 392, "");
static_assert(sizeof(rusage_info_v6) == 464, "");

// Bytes copied for flavors RUSAGE_INFO_V0..V6.
constexpr size_t kRusageSizes[] = {96, 144, 160, 232, 296, 304, 464};
static_assert(offsetof(rusage_info_v6, ri_child_user_time) == kRusageSizes[0], "");
static_assert(offsetof(rusage_info_v6, ri_diskio_bytesread) == kRusageSizes[1], "");
static_assert(offsetof(rusage_info_v6, ri_cpu_time_qos_default) == kRusageSizes[2], "");
static_assert(offsetof(rusage_info_v6, ri_logical_writes) == kRusageSizes[3], "");
static_assert(offsetof(rusage_info_v6, ri_flags) == kRusageSizes[4], "");
static_assert(offsetof(rusage_info_v6, ri_user_ptime) == kRusageSizes[5], "");

// mach_timebase_info (mach/mach_time.h).
struct mach_timebase_info_data_t {
    uint32_t numer;
    uint32_t denom;
};

}  // namespace rcsim

#endif
