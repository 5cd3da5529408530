// The kernel state kpc exposes is system-wide, not per thread or per sampler: the
// Power-Manager counter grant (force_all_ctrs), the counter configuration and the
// counting switches. One KernelState per loaded kperf library coordinates every sampler
// and kp_thread_t of this process that uses it:
//  - force_all_ctrs is saved by the first sampler and restored by the last one;
//  - counting is reference-counted, so one handle's stop never stops another's;
//  - while anything counts, only handles needing the same configuration may join.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/kperf/kpc_program.hpp"
#include "kpc/kperf_raw.h"

namespace kpc::kperf {

class KernelState {
public:
    // The state shared by everything that loaded the kperf library `handle`.
    static std::shared_ptr<KernelState> for_library(void *handle);

    // Take one reference on force_all_ctrs=1. The first reference saves the current value
    // first. Returns KP_OK, or a status with *message and *os_code set; on failure
    // nothing changed.
    int acquire_force(const kp_kperf_api_t &api, std::string *message, int *os_code);
    // Drop one reference. The last one switches counting off if needed, clears the
    // configuration words libkpc programmed and restores the saved force_all_ctrs.
    // Throws KP_EKERNEL if the kernel refused the restore (the reference is dropped).
    void release_force(const kp_kperf_api_t &api);

    // Called when a handle is created. Throws KP_EBUSY when something counts with a
    // configuration `prog` cannot share. When nothing counts, programs `prog`'s
    // configuration right away, so that a selector the kernel refuses is found by
    // kp_thread_new rather than later by kp_thread_start: returns false when the kernel
    // refused it with EPERM (secure allow-list; nothing changed), true otherwise.
    bool prepare(const kp_kperf_api_t &api, const KpcProgram &prog);
    // Which of `singles` (one-event programs) the kernel refuses (EPERM), tried with
    // counting off, which changes nothing that counts; the configuration is put back as
    // found. Throws KP_EBUSY if something counts, KP_EKERNEL on other kernel errors.
    std::vector<bool> refused(const kp_kperf_api_t &api, const std::vector<KpcProgram> &singles);
    // Count `prog` for `holder` (a counter object) of session `session`. The first holder
    // programs the kernel: config, then counting, then thread counting. Throws on failure,
    // with the kernel as it was. `released` is the session's flag, checked under the lock
    // so that a start racing with kp_sampler_release never outlives it (KP_ESTATE).
    void start(const kp_kperf_api_t &api, const void *holder, const void *session,
               const std::atomic<bool> &released, const KpcProgram &prog);
    // Drop `holder`'s counting reference; the last one switches counting off. Returns
    // false if `holder` was not counting (e.g. its sampler was released). Throws after
    // updating the bookkeeping if the kernel refused.
    bool stop(const kp_kperf_api_t &api, const void *holder);
    // Drop every reference held by `session` (kp_sampler_release). Throws like stop().
    void stop_session(const kp_kperf_api_t &api, const void *session);
    // Whether `holder` still holds a counting reference.
    bool counting(const void *holder) const;
    // Gives the calling thread its per-thread counter buffer now, by enabling thread
    // counting from it with the classes already counting (XNU allocates the buffer of the
    // thread that enables it). Returns 0 or the errno; 0 and nothing done if nothing counts.
    int claim_thread_buffer(const kp_kperf_api_t &api);

private:
    // kpc_set_config of `words` for `classes`; returns 0 or the errno.
    static int write_config(const kp_kperf_api_t &api, uint32_t classes,
                                   const std::vector<kp_kpc_config_t> &words);
    // write_config for `prog`, remembering what was programmed. Caller holds mu_.
    int program_config_locked(const kp_kperf_api_t &api, const KpcProgram &prog);
    // program_config_locked, mapping EPERM to KP_EUNAVAILABLE. Caller holds mu_.
    void set_config_locked(const kp_kperf_api_t &api, const KpcProgram &prog);
    // Switch counting off (both switches, even if one fails); returns the errno of the
    // first failing call or 0. A failure leaves kernel_on_ set, so the next stop or the
    // last release tries again.
    int stop_kernel_locked(const kp_kperf_api_t &api, const char **failed_call);

    mutable std::mutex mu_;
    int force_refs_ = 0;
    int saved_force_ = 0;
    size_t words_programmed_ = 0;  // configuration words we set since the grant was taken
    std::vector<kp_kpc_config_t> last_config_;  // the words of our last kpc_set_config
    bool kernel_on_ = false;  // counting may be on because of us (cleared by a successful stop)
    std::unordered_map<const void *, const void *> holders_;  // holder -> session
    KpcProgram active_;
};

}  // namespace kpc::kperf
