// The simulated machine: knobs (RCSIM_* environment, rcsim_* controls) and the deterministic
// model that turns Linux CPU time into Apple's counts (README.md, "Value model").
#ifndef RCSIM_MODEL_H
#define RCSIM_MODEL_H

#include <cstddef>
#include <cstdint>

#include "apple_abi.h"

#define RCSIM_EXPORT extern "C" __attribute__((visibility("default")))

namespace rcsim {

struct Config {
    int major, minor;          // RCSIM_MACOS
    char version[24];          // RCSIM_MACOS as given, answered by kern.osproductversion
    int perf_levels;           // hw.nperflevels: RCSIM_PERF_LEVELS, 1 under RCSIM_VM
    double p_share;            // RCSIM_P_SHARE
    bool vm;                   // RCSIM_VM
    uint32_t numer, denom;     // RCSIM_TIMEBASE
    long long euid;            // pretended caller euid (RCSIM_EUID / rcsim_set_euid), -1 = real
};

// A consistent snapshot of the knobs (a reset may run on another thread).
Config config();
bool at_least(const Config &c, int major, int minor);

// Model constants (README.md): a 3 GHz clock, two instructions per cycle.
constexpr uint64_t kCyclesPerNs = 3;
constexpr uint64_t kInstructionsPerCycle = 2;

struct CpuTime {
    uint64_t total_ns;   // user + system, the most precise source available
    uint64_t user_ns;
    uint64_t system_ns;
};

uint64_t ns_to_ticks(const Config &c, uint64_t ns);
// Totals of one thread or process; instructions and cycles are 0 in a VM.
usage_words total_usage(const Config &c, const CpuTime &t);
// p = round(total × share) per word, e = total − p.
void split_usage(const Config &c, const usage_words &total, usage_words *p, usage_words *e);

// Apple's `caller may inspect target` rule for proc_pid_rusage and proc_pidinfo: the same
// effective uid, or a caller with PRIV_GLOBAL_PROC_INFO, which root has
// (proc_security_policy(..., CHECK_SAME_USER), xnu-11417 bsd/kern/proc_info.c; sandbox
// denials are not modelled). The caller's own process belongs to the pretended euid.
bool may_inspect(const Config &c, bool own_process, unsigned target_euid);

// errno-style failure: sets errno, returns -1.
int fail(int err);
// copyout: false (EFAULT) for a pointer into the first page when n > 0; n == 0 touches nothing.
bool copy_out(void *dst, const void *src, size_t n);

// Drops the remembered exit times of zombies (rusage.cpp); called by rcsim_reset().
void forget_zombies();

}  // namespace rcsim

#endif
