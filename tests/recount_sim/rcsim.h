/*
 * rcsim.h: test-only controls of the simulated Apple libSystem (librecount_sim.so).
 *
 * The library exports Apple's thread_selfcounts, proc_pidinfo, proc_pid_rusage,
 * mach_timebase_info and sysctlbyname with Apple's signatures and behaviour
 * (/work/shared/reference/apple-recount.md); README.md beside this file describes the model.
 * These rcsim_* functions are NOT Apple's. Tests link the library to call them; a later
 * dlopen() of the same path returns the same instance, so the controls steer what the
 * code under test sees. Processes that cannot link it use the RCSIM_* environment
 * variables, read when the library is loaded and by rcsim_reset().
 */
#ifndef RCSIM_H
#define RCSIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* Re-read every RCSIM_* variable (an unset one takes its default), drop any rcsim_set_euid
 * override in favour of RCSIM_EUID, and forget remembered zombie exit times. An invalid
 * value prints the variable, the value and what is accepted to stderr, then aborts. */
void rcsim_reset(void);

/* Pretend the caller's effective uid is `euid` (0 = root, which may inspect everything);
 * -1 = the real geteuid(). The caller's own process counts as owned by that uid; every other
 * process keeps its real owner. Lets tests that run as root see EPERM. Env: RCSIM_EUID. */
void rcsim_set_euid(long long euid);

#ifdef __cplusplus
}
#endif

#endif
