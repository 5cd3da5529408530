#include "backends/kperf/kernel_state.hpp"

#include <algorithm>
#include <cerrno>
#include <string>

#include "backends/kperf/kperf_errors.hpp"
#include "core/error.hpp"

namespace kpc::kperf {
namespace {

[[noreturn]] void throw_busy_config(const KpcProgram &active, const KpcProgram &wanted) {
    fail(KP_EBUSY,
         "another kp_thread_t in this process is counting {" + active.events +
             "}, which needs a different counter configuration than {" + wanted.events +
             "}. Apple's counter configuration is system-wide, so only one configuration "
             "can count at a time: stop or free the other handle first, or count the same "
             "events (see docs/apple.md)");
}

}  // namespace

std::shared_ptr<KernelState> KernelState::for_library(void *handle) {
    static std::mutex mu;
    // Leaked on purpose: samplers may be freed from static destructors.
    static auto *registry = new std::unordered_map<void *, std::weak_ptr<KernelState>>();
    std::lock_guard<std::mutex> lock(mu);
    std::weak_ptr<KernelState> &slot = (*registry)[handle];
    if (auto existing = slot.lock()) return existing;
    auto fresh = std::make_shared<KernelState>();
    slot = fresh;
    return fresh;
}

int KernelState::acquire_force(const kp_kperf_api_t &api, std::string *message, int *os_code) {
    std::lock_guard<std::mutex> lock(mu_);
    if (force_refs_ > 0) {
        ++force_refs_;
        return KP_OK;
    }
    int saved = 0;
    if (api.kpc_force_all_ctrs_get(&saved) != 0) {
        int err = errno;
        *os_code = err;
        if (err == EPERM || err == EACCES) {
            *message = "kperf: kpc_force_all_ctrs_get was refused: counting CPU events on "
                       "macOS needs root. Run the program as root (sudo), or from the process "
                       "named in the kperf.blessed_pid sysctl " + errno_text(err);
            return KP_EPERM;
        }
        return kpc_status("kpc_force_all_ctrs_get", err, message);
    }
    if (api.kpc_force_all_ctrs_set(1) != 0) {
        int err = errno;
        *os_code = err;
        if (err == EACCES) {
            *message = "kperf: kpc_force_all_ctrs_set(1) was refused: another process holds "
                       "the counters (only one process at a time may take them from the Power "
                       "Manager): another program using libkpc or kpc, Instruments, xctrace "
                       "or powermetrics. Quit it and retry " + errno_text(err);
            return KP_EBUSY;
        }
        return kpc_status("kpc_force_all_ctrs_set", err, message);
    }
    saved_force_ = saved;
    words_programmed_ = 0;
    last_config_.clear();
    force_refs_ = 1;
    return KP_OK;
}

void KernelState::release_force(const kp_kperf_api_t &api) {
    std::lock_guard<std::mutex> lock(mu_);
    if (force_refs_ == 0) return;
    if (--force_refs_ > 0) return;
    holders_.clear();  // sessions drop theirs first; never leave counting on
    if (kernel_on_) {
        const char *call = nullptr;
        (void)stop_kernel_locked(api, &call);
    }
    if (words_programmed_ > 0) {
        // Clear what we programmed, while the counters are still ours. The registers are
        // inert once counting is off, so this is tidiness: a refusal gets one retry and is
        // otherwise ignored.
        // kpc_set_config reads as many words as the class has: pass a full-size buffer.
        kp_kpc_config_t zeros[KP_KPC_MAX_COUNTERS] = {};
        if (api.kpc_set_config(KP_KPC_CLASS_CONFIGURABLE_MASK, zeros) != 0)
            (void)api.kpc_set_config(KP_KPC_CLASS_CONFIGURABLE_MASK, zeros);
        words_programmed_ = 0;
        last_config_.clear();
    }
    // Giving the counters back matters (the Power Manager and other tools need them), so
    // a transient refusal gets one more try.
    if (api.kpc_force_all_ctrs_set(saved_force_) == 0) return;
    int err = errno;
    if (api.kpc_force_all_ctrs_set(saved_force_) == 0) return;
    err = errno;
    fail(KP_EKERNEL,
         "kperf: kpc_force_all_ctrs_set(" + std::to_string(saved_force_) +
             ") could not give the counters back to the Power Manager " + errno_text(err) +
             "; they return to it when this process exits",
         err);
}

// kpc_set_config for `words` of `classes`: 0 or the errno.
int KernelState::write_config(const kp_kperf_api_t &api, uint32_t classes,
                                     const std::vector<kp_kpc_config_t> &words) {
    // A full-size, zero-padded copy: kpc_set_config reads as many words as the classes
    // have, whatever kpep returned.
    kp_kpc_config_t buf[KP_KPC_MAX_COUNTERS] = {};
    std::copy(words.begin(), words.end(), buf);
    return api.kpc_set_config(classes, buf) == 0 ? 0 : errno;
}

int KernelState::program_config_locked(const kp_kperf_api_t &api, const KpcProgram &prog) {
    int err = write_config(api, prog.classes, prog.words);
    if (err == 0) {
        words_programmed_ = std::max(words_programmed_, prog.words.size());
        last_config_ = prog.words;
    }
    return err;
}

void KernelState::set_config_locked(const kp_kperf_api_t &api, const KpcProgram &prog) {
    int err = program_config_locked(api, prog);
    if (err == 0) return;
    if (err == EPERM)
        fail(KP_EUNAVAILABLE,
             "kperf: the kernel refused the counter configuration for {" + prog.events +
                 "} (kpc_set_config: EPERM): this macOS does not allow counting at least one "
                 "of these events (its selector is not on the kernel's allow-list of "
                 "countable events). Leave that event out or pick another " + errno_text(err),
             err);
    throw_kpc("kpc_set_config", err);
}

bool KernelState::prepare(const kp_kperf_api_t &api, const KpcProgram &prog) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!holders_.empty()) {
        if (!active_.same_config(prog)) throw_busy_config(active_, prog);
        return true;
    }
    if (!prog.needs_config()) return true;
    int err = program_config_locked(api, prog);
    if (err == EPERM) return false;
    if (err != 0) throw_kpc("kpc_set_config", err);
    return true;
}

std::vector<bool> KernelState::refused(const kp_kperf_api_t &api,
                                       const std::vector<KpcProgram> &singles) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!holders_.empty())
        fail(KP_EBUSY, "kperf: cannot test which event the kernel refuses while counting");
    std::vector<bool> out(singles.size(), false);
    int failure = 0;
    for (size_t i = 0; i < singles.size() && !failure; ++i) {
        if (!singles[i].needs_config()) continue;
        int err = write_config(api, singles[i].classes, singles[i].words);
        if (err == EPERM)
            out[i] = true;
        else
            failure = err;
    }
    // Put back what libkpc last programmed (zeros if nothing): kpc_get_config cannot say
    // what was there, since recent kernels report the live words, not the stored ones.
    (void)write_config(api, KP_KPC_CLASS_CONFIGURABLE_MASK, last_config_);
    if (failure) throw_kpc("kpc_set_config", failure);
    return out;
}

void KernelState::start(const kp_kperf_api_t &api, const void *holder, const void *session,
                        const std::atomic<bool> &released, const KpcProgram &prog) {
    std::lock_guard<std::mutex> lock(mu_);
    if (released.load(std::memory_order_acquire))
        fail(KP_ESTATE, "the sampler was released (kp_sampler_release); create a new sampler to count again");
    if (holders_.count(holder)) return;
    if (!holders_.empty()) {
        if (!active_.same_config(prog)) throw_busy_config(active_, prog);
        holders_.emplace(holder, session);
        return;
    }
    // Configuration first, every time: another handle may have programmed its own since,
    // and recent kernels apply it only when counting is switched on.
    if (prog.needs_config()) set_config_locked(api, prog);
    if (api.kpc_set_counting(prog.classes) != 0) {
        int err = errno;
        throw_kpc("kpc_set_counting", err);
    }
    kernel_on_ = true;
    if (api.kpc_set_thread_counting(prog.classes) != 0) {
        int err = errno;
        const char *call = nullptr;
        (void)stop_kernel_locked(api, &call);  // back to "nothing counts"
        throw_kpc("kpc_set_thread_counting", err);
    }
    active_ = prog;
    holders_.emplace(holder, session);
}

int KernelState::stop_kernel_locked(const kp_kperf_api_t &api, const char **failed_call) {
    int first = 0;
    // Both calls are attempted even if the first fails.
    if (api.kpc_set_thread_counting(0) != 0) {
        first = errno;
        *failed_call = "kpc_set_thread_counting(0)";
    }
    if (api.kpc_set_counting(0) != 0 && first == 0) {
        first = errno;
        *failed_call = "kpc_set_counting(0)";
    }
    if (first == 0) kernel_on_ = false;
    return first;
}

bool KernelState::stop(const kp_kperf_api_t &api, const void *holder) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = holders_.find(holder);
    if (it == holders_.end()) return false;
    holders_.erase(it);
    if (holders_.empty() && kernel_on_) {
        const char *call = nullptr;
        if (int err = stop_kernel_locked(api, &call)) throw_kpc(call, err);
    }
    return true;
}

void KernelState::stop_session(const kp_kperf_api_t &api, const void *session) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = holders_.begin(); it != holders_.end();) {
        if (it->second == session) {
            it = holders_.erase(it);
        } else {
            ++it;
        }
    }
    if (holders_.empty() && kernel_on_) {
        const char *call = nullptr;
        if (int err = stop_kernel_locked(api, &call)) throw_kpc(call, err);
    }
}

int KernelState::claim_thread_buffer(const kp_kperf_api_t &api) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!kernel_on_ || holders_.empty()) return 0;
    return api.kpc_set_thread_counting(active_.classes) == 0 ? 0 : errno;
}

bool KernelState::counting(const void *holder) const {
    std::lock_guard<std::mutex> lock(mu_);
    return holders_.count(holder) != 0;
}

}  // namespace kpc::kperf
