/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/**
 * @file kpc/errors.h
 * @brief Status codes and the detailed message of the last failure.
 * @defgroup kp_errors Errors
 *
 * Every fallible function returns an int: KP_OK (0) on success or one of the negative
 * kp_status values below. The values are stable: they never change and are never reused;
 * new codes are only added at the end.
 *
 * Alongside the code, each failure records a detailed message in storage private to the
 * calling OS thread (thread-local). It names the cause and the fix and, where there is one,
 * the OS or framework code. Read it with kp_error_last_message() *on the same OS thread,
 * before the next kp_ call*. Bindings do this inside the same native call:
 *  - Go: goroutines migrate between OS threads, so the Go layer reads the message in the
 *    same cgo call that failed (or holds runtime.LockOSThread around both calls).
 *  - Java (JNI) and Swift call synchronously on the calling thread, so reading right after
 *    the failing call is safe.
 * See docs/error-handling.md.
 * @{
 */
#ifndef KPC_ERRORS_H
#define KPC_ERRORS_H

#include "export.h"

KP_BEGIN_DECL

/** Status codes. Explicit, stable values; grow only at the end. */
typedef enum kp_status {
    KP_OK = 0,               /**< Success. */
    KP_ERROR = -1,           /**< Internal error not covered by another code. */
    KP_EINVAL = -2,          /**< Invalid argument (NULL, bad size or version, name over KP_EVENT_NAME_MAX bytes, a counter listed twice). */
    KP_ENOMEM = -3,          /**< Out of memory, or a sampler's 4096 looked-up events are taken. */
    KP_ELOAD = -4,           /**< A framework or symbol could not be loaded (dlopen/dlsym). */
    KP_EPERM = -5,           /**< Permission denied: run as root (macOS) or lower perf_event_paranoid (Linux). */
    KP_EBUSY = -6,           /**< Counters are held by someone else (another tool or process). */
    KP_EUNSUPPORTED = -7,    /**< Not supported here: no PMU, unknown CPU, or backend not built. */
    KP_EUNKNOWN_EVENT = -8,  /**< No event of that name. */
    KP_EUNAVAILABLE = -9,    /**< The event exists but cannot be counted on this machine or OS. */
    KP_ECONFLICT = -10,      /**< The events cannot be counted together (counter constraints). */
    KP_EWRONG_THREAD = -11,  /**< A kp_thread_t was used from a thread other than its creator. */
    KP_ESTATE = -12,         /**< Wrong state: not started yet, or the sampler was released. */
    KP_ELAYOUT = -13,        /**< A framework's struct layout is not one libkpc understands. */
    KP_EFRAMEWORK = -14,     /**< Apple's kperfdata framework returned an error (kpep code in the message). */
    KP_EKERNEL = -15,        /**< The kernel refused an operation (errno in the message). */
    KP_EBUFSIZE = -16,       /**< A caller buffer is too small. */
    KP_EPARTIAL = -17,       /**< Values written, but partial: the kernel multiplexed the events (see kp_thread_sample). */
    KP_EEXEC = -18           /**< The command to count could not be executed (kp_process_spawn): its exec errno is in kp_error_last_os_code(). */
} kp_status;

/**
 * Short, static description of a status code, e.g. "permission denied".
 * @param status a kp_status value (any int is accepted).
 * @return a static string; never NULL ("unknown status" for values that are not codes).
 * Thread-safe; sets no error.
 */
KP_API const char *kp_strerror(int status);

/**
 * Detailed message of the last failure on the calling OS thread, e.g.
 * "perf_event_open(cycles): hardware events are not supported on this machine (virtual
 * machine without a PMU?) [errno 2: No such file or directory]".
 * @return a string owned by the library, valid until the next kp_ call on this thread;
 *         never NULL ("" when nothing failed since the last kp_error_clear()).
 * Thread rules: thread-local; see the header comment for Go.
 */
KP_API const char *kp_error_last_message(void);

/**
 * Status code of the last failure on the calling OS thread, or KP_OK if none.
 * Thread-local; never fails.
 */
KP_API int kp_error_last_status(void);

/**
 * OS or framework code attached to the last failure on the calling thread: an errno value
 * (perf_event, kpc calls) or a kpep error code (kperfdata), 0 when there is none.
 * kp_error_last_message() says which kind it is. Thread-local; never fails.
 */
KP_API int kp_error_last_os_code(void);

/** Forget the last failure of the calling thread. Thread-local; never fails. */
KP_API void kp_error_clear(void);

KP_END_DECL

/** @} */
#endif /* KPC_ERRORS_H */
