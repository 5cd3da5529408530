/*
 * kpsim.h: test-only control surface of the kperf simulator.
 *
 * The simulator is two shared libraries, libkperf_sim.so and libkperfdata_sim.so, that
 * export Apple's kperf.framework / kperfdata.framework symbols with Apple's signatures,
 * struct layouts and documented kernel behaviour (../shared/reference/apple-kperf.md).
 * libkpc loads them by path exactly as it loads the real frameworks.
 *
 * These kpsim_* functions are NOT part of Apple's ABI. Tests link the simulator libraries
 * directly to call them; the dynamic loader then hands libkpc's dlopen() the same instance,
 * so tests see and steer the very state libkpc drives. Processes that cannot link them
 * (the kpc CLI) steer the simulator with the KPSIM_* environment variables, read when
 * each library is loaded and by kpsim_reset().
 *
 * Return conventions of the simulated Apple functions, every behavioural choice and the
 * counter-value model: README.md beside this file.
 */
#ifndef KPSIM_H
#define KPSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- libkperf_sim.so: the simulated XNU kernel behind the kpc_* / kperf_* calls ---- */

/* A snapshot of the simulated kernel state, to prove nothing was left behind. */
typedef struct kpsim_kernel_state {
    uint32_t counting;          /* kpc.counting class mask */
    uint32_t thread_counting;   /* kpc.thread_counting class mask */
    int force_all_ctrs;         /* kpc.force_all_ctrs as seen by this process */
    int force_owner;            /* 0 none, 1 this process, 2 another process */
    uint32_t config_words;      /* number of non-zero configurable config words programmed */
    uint64_t config[8];         /* last config accepted by kpc_set_config (configurable class);
                                   index 0..7 = counter #2..#9 */
    uint32_t applied_config_words; /* config words live in the counters (applied at counting start) */
    uint32_t thread_buffers;    /* threads whose lazy per-thread buffer exists (a buffer lives
                                   until its thread exits or kpsim_reset, as in XNU) */
    uint64_t calls;             /* total calls into kpc_* / kperf_* since reset */
} kpsim_kernel_state;

/* Reset the whole simulated kernel to boot state, then re-read the KPSIM_* environment. */
void kpsim_reset(void);
/* Copy the current kernel state. */
void kpsim_kernel_get_state(kpsim_kernel_state *out);

/* Whether the caller is root (or the blessed pid). Env: KPSIM_ROOT=0|1 (default 1). */
void kpsim_set_root(int is_root);
/* Another CPC owner (perfmon, Instruments) holds the CPMU: every kpc call needing
 * ktrace access returns EBUSY. Env: KPSIM_PMU_BUSY=1. */
void kpsim_set_pmu_busy(int busy);
/* Another process has forced all counters: force_all_ctrs_set(1) returns EACCES.
 * Env: KPSIM_FORCE_HELD=1. */
void kpsim_set_force_held_elsewhere(int held);
/* Restrict kpc_set_config to these selectors (secure CPC); count 0 = allow every selector
 * present in the running chip's database. Env: KPSIM_DENY=<sel>,<sel> removes selectors. */
void kpsim_set_allow_list(const uint16_t *selectors, size_t count);
/* Deny one selector (EPERM from kpc_set_config). */
void kpsim_deny_selector(uint16_t selector);

/* Fault injection: the nth call (1 = next) from now on of `symbol` (a kpc_* / kperf_*
 * name) fails, returning the failure value its real counterpart returns and setting errno
 * to err_no. Returns 0, or -1 if the symbol is not simulated. Env: KPSIM_FAIL=sym:nth:errno */
int kpsim_fail(const char *symbol, int nth, int err_no);
/* Remove every pending fault. */
void kpsim_clear_faults(void);

/* ---- additions (libkperf_sim.so) ---- */

/* The simulated machine. The kernel (libkperf_sim) owns the chip identity, as XNU owns
 * hw.cpufamily: it decides kpc_cpu_string() and the default secure-CPC allow-list, and
 * kpep_db_create(NULL) in libkperfdata_sim asks it (dlsym of kpsim_get_chip in the global
 * scope, else in an already loaded libkperf_sim.so found with RTLD_NOLOAD) which database
 * to open. kpsim_data_set_db() forwards to kpsim_set_chip(), so either call moves both
 * libraries. Accepts every name kpsim_data_set_db() accepts ("none" = a machine without a
 * kpep database). Resets the allow-list to the chip's default. Returns 0, or -1 for an
 * unknown name. Env: KPSIM_DB (read at load and by kpsim_reset). */
int kpsim_set_chip(const char *db_name);
/* Name last given to kpsim_set_chip / KPSIM_DB (valid while libkperf_sim stays loaded). */
const char *kpsim_get_chip(void);
/* XNU gives the thread that calls kpc_set_thread_counting() its counter buffer at once
 * (the T_KPC_ALLOC AST runs on the way back to user space); every other thread's first
 * kpc_get_thread_counters() fails with EINVAL. With strict mode on, the enabling thread's
 * first read fails too. Env: KPSIM_STRICT_FIRST_READ=1 (default 0). */
void kpsim_set_strict_first_read(int on);
/* What kpc_get_counter_count(classes) would return now, without its access checks,
 * faults or call count: how libkperfdata_sim's kpep_db_counters_count asks the kernel.
 * Env: KPSIM_COUNT_BEFORE_FORCE=smaller|same (README "Variants"). */
uint32_t kpsim_counter_count(uint32_t classes);
/* CPUs kpc_get_cpu_counters(true, ...) reports (sysconf(_SC_NPROCESSORS_ONLN)). */
uint32_t kpsim_ncpu(void);

/* ---- libkperfdata_sim.so: the kpep event databases ---- */

/* Choose the database kpep_db_create(NULL) opens: "a14", "a15", "as1", "as4", "as5",
 * "a14-legacy48" (48-byte kpep_event layout), or an unknown name such as "zz9".
 * Also "a16", "as2", "as3", "as4-1", "as4-2", "as5-1", "as5-2", "cpu_100000c_2_<family>"
 * and "none" (no database: kpep_db_create(NULL) returns 7). Forwards to kpsim_set_chip()
 * when libkperf_sim is loaded. Returns 0, or -1 for a name no database would have.
 * Env: KPSIM_DB (default "a14"). */
int kpsim_data_set_db(const char *name);
/* Fault injection for kpep_* functions: the nth call returns kpep error `code`.
 * Returns 0, or -1 if the symbol is not a simulated int-returning kpep_* function.
 * Env: KPSIM_DATA_FAIL=sym:nth:code[,sym:nth:code] (read at load and by kpsim_data_reset). */
int kpsim_data_fail(const char *symbol, int nth, int code);
void kpsim_data_clear_faults(void);
/* Live objects created by kpep_db_create / kpep_config_create and not yet freed. */
size_t kpsim_data_live_dbs(void);
size_t kpsim_data_live_configs(void);
/* Reset the data library (faults, chosen db from KPSIM_DB). Live-object counts are kept. */
void kpsim_data_reset(void);

#ifdef __cplusplus
}
#endif
#endif /* KPSIM_H */
