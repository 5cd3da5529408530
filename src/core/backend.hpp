// The interface every backend implements. A Session owns one Backend; each kp_thread_t
// owns one ThreadCounters opened from it. Cold-path methods throw kpc::Error; the hot
// path (ThreadCounters::read, read_values) is noexcept and allocation-free.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/event.hpp"
#include "kpc/errors.h"
#include "kpc/kperf_raw.h"
#include "kpc/process.h"
#include "kpc/sampler.h"

namespace kpc {

class EventDatabase;

struct CpuInfo {
    std::string id;    // kp_sampler_cpu_id
    std::string name;  // kp_sampler_cpu_name
    std::string pmu;   // kp_sampler_pmu_name
};

// Counters of one kp_thread_t. Created, started, stopped and read on the owning thread;
// destroyed on any thread.
class ThreadCounters {
public:
    virtual ~ThreadCounters() = default;
    // Begin or resume counting (called only when not running).
    virtual void start() = 0;
    // Pause counting (called only when running).
    virtual void stop() = 0;
    // Write one running total per event, in event order. `complete` (may be null) gets 1
    // per event that was never multiplexed; `enabled_ns`/`running_ns` (never null) get the
    // backend's times or 0. Returns KP_OK or a status after record_error(). No allocation.
    virtual int read(uint64_t *values, uint8_t *complete, uint64_t *enabled_ns,
                     uint64_t *running_ns) noexcept = 0;
    // read() without `complete` and times (kp_thread_sample's case), without that work:
    // the same values, status and errors. Pure, not a default calling read(): an inline
    // default lets the compiler test for it on every sample (speculative devirtualisation).
    virtual int read_values(uint64_t *values) noexcept = 0;
    // "" when samples are read in user space (without a system call); otherwise why not
    // and the fix (kp_thread_user_reads_reason). Valid as long as the counters.
    virtual const char *user_reads_refusal() const noexcept { return kNoUserReads; }

    // The reason of backends that always read through the kernel (Apple's).
    static constexpr const char *kNoUserReads =
        "not available: this backend reads its counters with a system call; stock macOS has "
        "no user-space counter reads (XNU never sets PMCR0_USEREN)";
};

// read() for counters that are never multiplexed and measure no enabled/running times
// (Apple's kpc and the kernel's recount totals): `n` events all complete, times 0, then
// `c`'s read_values().
inline int read_never_multiplexed(ThreadCounters &c, size_t n, uint64_t *values, uint8_t *complete,
                                  uint64_t *enabled_ns, uint64_t *running_ns) noexcept {
    *enabled_ns = 0;
    *running_ns = 0;
    if (complete)
        for (size_t i = 0; i < n; ++i) complete[i] = 1;
    return c.read_values(values);
}

// Counts of one event for a whole process, or for every CPU (kp_process_t, kpc stat).
struct ProcessCount {
    bool counted = false;    // false: `status` and `error` say why
    int status = KP_OK;      // KP_EUNAVAILABLE / KP_EUNSUPPORTED: this machine cannot count it
    uint64_t value = 0;
    uint64_t enabled_ns = 0;  // 0 when the backend does not measure it
    uint64_t running_ns = 0;
    // false: the value misses part of the counted span (e.g. an attached process ended
    // between two reads, taking its last work with it); reported as complete = 0.
    bool complete = true;
    std::string error;
};

// What a ProcessCounters can do. The defaults describe counters that are read once, after
// the child exited, cannot pause, and have no per-thread rows.
struct ProcessCapabilities {
    bool reads_while_running = false;  // read() at any time, not only after child_exited()
    bool can_pause = false;            // stop() and start() pause and resume counting
    bool per_thread = false;           // thread_count() and read_thread() give rows
    // What every count covers unless ProcessCounters::event_scope says otherwise for one.
    kp_process_scope_t scope = KP_PROCESS_SCOPE_TREE;
};

// Counters on a whole process or on every CPU, from Backend::count_process.
class ProcessCounters {
public:
    virtual ~ProcessCounters() = default;
    virtual ProcessCapabilities capabilities() const { return {}; }
    // What event `index` (among those given to count_process) covers, where one set mixes
    // scopes (Apple kperf: the fixed counters' events from the process's own totals, the
    // rest system-wide). Known from creation. Default: capabilities().scope.
    virtual kp_process_scope_t event_scope(size_t index) const {
        (void)index;
        return capabilities().scope;
    }
    // One entry per event given to count_process.
    virtual std::vector<ProcessCount> read() = 0;
    // Throws the Error of the first event that could not be attached: count_process reports
    // those per event (kpc stat shows the rest); a kp_process_t refuses the whole set.
    virtual void require_all_events() const {}
    // As require_all_events, but only when no event at all could be attached (partial sets:
    // a handle that counts nothing is an error, not a result).
    virtual void require_some_event() const {}
    // A spawned command: called once its exec succeeded; returns when counting has begun in it.
    virtual void child_execed() noexcept {}
    // A spawned command: called once it has exited and before it is reaped (still a zombie):
    // counters that read the process's own totals read them here. Never throws; read()
    // reports what failed.
    virtual void child_exited() noexcept {}
    // Pause and resume (capabilities().can_pause). Counting starts at creation.
    virtual void stop() {}
    virtual void start() {}
    // Per-thread rows (capabilities().per_thread; kp_process_read_thread): how many, and one
    // row's counts with its thread id. Default: none, and read_thread() fails KP_EINVAL.
    virtual size_t thread_count() const { return 0; }
    virtual std::vector<ProcessCount> read_thread(size_t index, int &tid);
};

// What Backend::count_process counts.
struct ProcessTarget {
    enum class Kind {
        spawned,   // a command libkpc started, held before its exec: count from the exec on
        attached,  // a running process: its threads now and what they start, from now on
        every_cpu  // every CPU, whatever runs there, from now on (KP_PROCESS_SYSTEM_WIDE)
    };
    Kind kind;
    int pid;  // the process; unused for every_cpu
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual kp_backend_t kind() const = 0;
    virtual const char *name() const = 0;  // static string
    virtual const CpuInfo &cpu() const = 0;
    virtual uint32_t fixed_counters() const = 0;
    virtual uint32_t configurable_counters() const = 0;
    // Non-empty when the backend cannot tell how many counters there are (then both counts
    // are 0): why. kp_sampler_counter_count reports it rather than a wrong number.
    virtual std::string counters_unknown() const { return ""; }
    // Throws the Error kp_thread_new would give for a hardware event; returns if counting works.
    virtual void check_access() const = 0;
    // Add every listable event (generic ones first) to the database; called once.
    virtual void populate(EventDatabase &db) = 0;
    // Build an event for a name the database does not list (raw codes, libpfm4 names), or
    // return false if the backend does not recognise it. Throws for malformed raw codes.
    virtual bool resolve_dynamic(std::string_view name, Event &out) {
        (void)name;
        (void)out;
        return false;
    }
    // Open counters for `events` on the calling thread. Throws on failure.
    virtual std::unique_ptr<ThreadCounters> open(const std::vector<const Event *> &events) = 0;
    // Count `events` for `target`. `groups` is empty, or gives event i's group number (-1:
    // none): the events of one group are scheduled on the PMU together (kpc stat -e
    // '{a,b}'); a backend that never multiplexes may ignore it. Events that cannot be
    // attached are reported per event (ProcessCount::error, require_all_events()); throws
    // only when nothing can be counted. Default: KP_EUNSUPPORTED, saying what this backend
    // cannot count (core/backend.cpp).
    virtual std::unique_ptr<ProcessCounters> count_process(const ProcessTarget &target,
                                                           const std::vector<const Event *> &events,
                                                           const std::vector<int> &groups);
    // "" when new kp_thread_t handles of hardware events will be read in user space;
    // otherwise why not and the fix (kp_sampler_user_reads_reason). May probe; thread-safe.
    virtual const std::string &user_reads_refusal() const {
        static const std::string none = ThreadCounters::kNoUserReads;
        return none;
    }
    // Give the counters back (kp_sampler_release / last handle gone). Idempotent. Throws
    // only after having done all it can.
    virtual void release() = 0;
    // Appended to "unknown event" errors: what this backend cannot offer and where to get
    // it. Empty by default.
    virtual std::string unknown_event_hint() const { return {}; }
    // `e` carries ":u"/":k" modifiers (Event::modified): make it count what they ask, or
    // throw (KP_EUNSUPPORTED) saying why this backend cannot. The default cannot.
    virtual void apply_modifiers(Event &e) const;
    // After a set was opened: whether `e` is counted as another event (kperf: a generic
    // event whose first candidate the kernel refused counts on the next), which is then
    // written to `out`, so that handles report what they count. The default: never.
    virtual bool counted_instead(const Event & /*e*/, Event & /*out*/) { return false; }
    // kp_sampler_kperf_api / kp_sampler_kperf_info: the kperf backend's framework table and
    // what it found at creation. Null on every other backend.
    virtual const kp_kperf_api_t *kperf_api() const { return nullptr; }
    virtual kp_kperf_info_t kperf_info() const { return {}; }

    // Why this backend serves the sampler: kp_sampler_backend_reason. Set once, by
    // make_backend, before the session is shared.
    const std::string &choice_reason() const { return choice_reason_; }
    void set_choice_reason(std::string reason) { choice_reason_ = std::move(reason); }

private:
    std::string choice_reason_;
};

// Which backend and framework paths, after options and environment are applied.
struct BackendConfig {
    // AUTO after resolve_config() only on macOS, where make_backend() chooses at run time.
    kp_backend_t backend = KP_BACKEND_AUTO;
    std::string kperf_path;
    std::string kperfdata_path;
    std::string libsystem_path;  // "" = the process's own libSystem (macOS)
    std::string reason;          // why `backend` was named: by the caller, or KPC_BACKEND
    // Why user-space counter reads are switched off (kp_sampler_options_t.user_reads,
    // KPC_USER_READS), or "" when they are used where the kernel allows.
    std::string user_reads_off;
};

// The macOS rule for KP_BACKEND_AUTO, as a pure function: kperf when this process may
// count with it (`kperf_status` KP_OK), the recount backend otherwise. `kperf_message` is
// why kperf cannot count. Returns the backend and the reason kp_sampler_backend_reason gives.
struct AutoChoice {
    kp_backend_t backend;
    std::string reason;
};
AutoChoice choose_apple_backend(int kperf_status, const std::string &kperf_message);

// Tests only: make KP_BACKEND_AUTO follow the macOS rule (1) or this platform's (0).
void set_apple_platform_for_testing(int on);

// Apply options, then KPC_BACKEND / KPC_KPERF_PATH / KPC_KPERFDATA_PATH, then platform defaults.
BackendConfig resolve_config(const kp_sampler_options_t *opts);

// Backend factories; a factory for a backend not built here throws KP_EUNSUPPORTED.
std::unique_ptr<Backend> make_backend(const BackendConfig &config);
std::unique_ptr<Backend> make_perf_event_backend(const std::string &user_reads_off = "");
// `libsystem_path`: where kpc stat finds proc_pid_rusage for the fixed counters' events
// ("" = the process's own libSystem on macOS, none elsewhere).
std::unique_ptr<Backend> make_kperf_backend(const std::string &kperf_path,
                                            const std::string &kperfdata_path,
                                            const std::string &libsystem_path = "");
std::unique_ptr<Backend> make_recount_backend(const std::string &libsystem_path);

}  // namespace kpc
