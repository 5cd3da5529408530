// libkperf_sim: Apple's kperf.framework entry points over a simulated XNU kpc/kperf kernel.
//
// Conventions (as the real framework, which wraps sysctl(3)):
//   * int-returning functions return 0 on success and -1 with errno set on failure
//     (Apple's own XNU tests check them with T_ASSERT_POSIX_SUCCESS);
//   * uint32_t getters (kpc_get_counting, kpc_get_thread_counting, kpc_get_config_count,
//     kpc_get_counter_count, kpc_pmu_version) return 0 with errno set on failure;
//   * kpc_cpu_string returns the string length, or -1 with errno.
// Kernel rules follow xnu-11417 (bsd/kern/kern_kpc.c, osfmk/kern/kpc_common.c,
// osfmk/kern/kpc_thread.c, osfmk/arm64/kpc.c, osfmk/kern/cpc.c, osfmk/kperf/*) plus the
// macOS 26.6 "config applied only when counting starts" rule. See README.md for every
// reading chosen where Apple's behaviour is not known.
#include "kpsim.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <bitset>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "apple_abi.h"
#include "chips.h"
#include "xnu_allow_lists.h"

#define KPSIM_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using namespace kpsim;

constexpr uint32_t kPmReservedRel = 0x38;  // PM-reserved configurable counters (5,6,7), relative
constexpr uint32_t kAllCfgRel = 0xFF;      // all 8 configurable counters, relative to counter 2
constexpr uint64_t kTickHz = 24000000;     // Apple-silicon timebase (numer 125 / denom 3)
constexpr uint64_t kMinTimerTicks = 1200;  // 50 us (kptimer_minperiods_ns, arm64 foreground)
constexpr uint64_t kMinPetTicks = 24000;   // 1 ms (PET foreground)

const char *const kSymbols[] = {
    "kpc_cpu_string", "kpc_pmu_version", "kpc_get_counting", "kpc_set_counting",
    "kpc_get_thread_counting", "kpc_set_thread_counting", "kpc_get_config_count",
    "kpc_get_counter_count", "kpc_get_config", "kpc_set_config", "kpc_get_cpu_counters",
#ifndef KPSIM_OMIT_KPC_GET_THREAD_COUNTERS
    "kpc_get_thread_counters",
#endif
    "kpc_force_all_ctrs_set", "kpc_force_all_ctrs_get", "kperf_action_count_set",
    "kperf_action_count_get", "kperf_action_samplers_set", "kperf_action_samplers_get",
    "kperf_action_filter_set_by_task", "kperf_action_filter_set_by_pid",
    "kperf_timer_count_set", "kperf_timer_count_get", "kperf_timer_period_set",
    "kperf_timer_period_get", "kperf_timer_action_set", "kperf_timer_action_get",
    "kperf_timer_pet_set", "kperf_timer_pet_get", "kperf_sample_set", "kperf_sample_get",
    "kperf_reset", "kperf_ns_to_ticks", "kperf_ticks_to_ns", "kperf_tick_frequency",
};

bool known_symbol(const std::string &s) {
    for (const char *k : kSymbols) {
        if (s == k) return true;
    }
    return false;
}

uint64_t clock_ns(clockid_t clk) {
    timespec ts{};
    if (clock_gettime(clk, &ts) != 0) return 0;
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

int popcount(uint32_t v) { return __builtin_popcount(v); }

// Per-thread kpc state: the lazily allocated counter buffer (thread->kpc_buf in XNU).
struct ThreadRec {
    clockid_t clk{};           // this thread's CPU-time clock
    uint64_t gen = 0;          // kernel generation the buffer belongs to (kpsim_reset bumps it)
    bool has_buf = false;
    long csw_seen = -1;        // strict lazy buffer: context switches at its first failed read
    uint64_t last_ns = 0;      // thread CPU time when last settled
    uint64_t acc[kCounterCount] = {};  // milli-events per absolute counter
};

struct KperfState {
    uint32_t actionc = 0;
    uint32_t samplers[KPERF_ACTION_MAX] = {};
    int32_t filter[KPERF_ACTION_MAX] = {};
    uint32_t timerc = 0;
    uint64_t period[KPERF_TIMER_MAX] = {};
    uint32_t timer_action[KPERF_TIMER_MAX] = {};
    uint32_t pet = KPERF_PET_INACTIVE;
    bool sampling = false;

    KperfState() {
        for (auto &f : filter) f = -1;
    }
};

class Kernel {
public:
    std::mutex mu;

    // --- environment of the simulated machine ---
    bool root = true;
    bool pmu_busy = false;
    bool force_elsewhere = false;
    bool strict_first_read = false;
    // Variants (README "Variants"); each default is the strictest reading.
    enum class Lazy { strict, first_read, eager } lazy = Lazy::strict;  // KPSIM_LAZY_BUFFER
    bool xnu_allow_list = true;      // KPSIM_ALLOW_LIST=db: every selector of the database
    bool apply_immediately = false;  // KPSIM_APPLY_CONFIG=immediate: macOS 15 and earlier
    bool count_same_unforced = false;  // KPSIM_COUNT_BEFORE_FORCE=same: counts ignore forcing
    // KPSIM_READ_KERNEL_INSTRUCTIONS: what each read costs FIXED_INSTRUCTIONS; a list
    // "a,b,c" is taken in turn, read after read since reset (known costs that vary).
    std::vector<uint64_t> read_kernel_instructions{17700};
    uint64_t counted_reads = 0;
    // KPSIM_CPU_TIME_COUNTS=0: threads accrue nothing from CPU time, so a thread's counts
    // move only by the reads' kernel instructions: exactly known, for exact tests.
    bool cpu_time_counts = true;
    std::bitset<65536> zeroed;       // KPSIM_ZERO: selectors that silently read 0
    const char *machine_name = "a14";  // interned; a name resolve_name() accepts
    Machine machine;
    std::bitset<65536> allowed;
    uint32_t ncpu = 1;

    // --- kpc state ---
    bool force_mine = false;
    uint32_t running_classes = 0;
    uint32_t running_cfg_mask = 0;       // relative mask enabled by kpc_set_counting
    bool thread_on = false;
    uint32_t thread_classes = 0;         // stashed even after thread counting stops (XNU)
    uint32_t thread_classes_count = 0;
    uint64_t stored[kConfigCount] = {};  // accepted by kpc_set_config
    uint64_t applied[kConfigCount] = {}; // live in the counters (applied at counting start)
    uint64_t gen = 1;
    std::vector<ThreadRec *> threads;
    std::vector<uint64_t> cpu_acc;       // ncpu * kCounterCount, milli-events
    uint64_t cpu_last_ns = 0;
    uint64_t calls = 0;
    FaultList faults;

    KperfState kperf;

    Kernel() { reset_locked(); }

    bool forced() const { return force_mine || force_elsewhere; }

    // kpc_get_configurable_pmc_mask(): relative mask of the configurable counters the
    // classes cover. The Power Manager registers with custom_config=TRUE
    // (kpc_register_pm_handler), so it keeps counters 5-7 unless somebody forced all
    // counters, and the POWER class is always empty.
    uint32_t cfg_mask(uint32_t classes) const {
        if (!(classes & KPC_CLASS_CONFIGURABLE_MASK)) return 0;
        return forced() ? kAllCfgRel : (kAllCfgRel & ~kPmReservedRel);
    }
    uint32_t counter_count(uint32_t classes) const {
        uint32_t n = 0;
        if (classes & KPC_CLASS_FIXED_MASK) n += kFixedCount;
        n += popcount(cfg_mask(classes));
        return n;
    }
    // Fixed counters take no config words; RAWPMU is not simulated (0 words).
    uint32_t config_count(uint32_t classes) const { return popcount(cfg_mask(classes)); }
    // What the public sysctls kpc.counter_count / kpc.config_count report. Strictly (the
    // default) the counters the kernel controls now: fewer until all are forced. With
    // KPSIM_COUNT_BEFORE_FORCE=same they report every counter whether forced or not (only
    // the reports change; placement still follows cfg_mask).
    uint32_t reported_counter_count(uint32_t classes) const {
        if (!count_same_unforced || !(classes & KPC_CLASS_CONFIGURABLE_MASK))
            return counter_count(classes);
        return ((classes & KPC_CLASS_FIXED_MASK) ? kFixedCount : 0) + popcount(kAllCfgRel);
    }
    uint32_t reported_config_count(uint32_t classes) const {
        if (!count_same_unforced || !(classes & KPC_CLASS_CONFIGURABLE_MASK))
            return config_count(classes);
        return popcount(kAllCfgRel);
    }

    uint32_t get_running() const {
        uint32_t state = 0;
        if (running_classes & KPC_CLASS_FIXED_MASK) state |= KPC_CLASS_FIXED_MASK;
        uint32_t m = cfg_mask(KPC_CLASS_CONFIGURABLE_MASK);
        if ((running_classes & KPC_CLASS_CONFIGURABLE_MASK) && (running_cfg_mask & m) == m) {
            state |= KPC_CLASS_CONFIGURABLE_MASK;
        }
        return state;
    }

    // set_modes() of osfmk/arm64/kpc.c on a release (secure) kernel: EL1EN is ignored;
    // no mode bits means "all modes", which becomes EL0 AArch64 only.
    static bool counts_el0_a64(uint64_t word) {
        if ((word & 0xFFFF) == 0) return false;  // selector 0 = no event
        bool a32 = word & CFGWORD_EL0A32EN, a64 = word & CFGWORD_EL0A64EN;
        return a64 || !a32;
    }
    static uint64_t readback(uint64_t word) {
        if (word == 0) return 0;
        uint64_t v = word & 0xFFFF;
        bool a32 = word & CFGWORD_EL0A32EN, a64 = word & CFGWORD_EL0A64EN;
        if (a32) v |= CFGWORD_EL0A32EN;
        if (a64 || !a32) v |= CFGWORD_EL0A64EN;
        return v;
    }

    // Absolute counters (bit i = counter i) incrementing for kpc right now.
    uint32_t hw_active() const {
        uint32_t a = 0;
        if (running_classes & KPC_CLASS_FIXED_MASK) a |= kFixedBits;
        if (running_classes & KPC_CLASS_CONFIGURABLE_MASK) {
            uint32_t live = running_cfg_mask & cfg_mask(KPC_CLASS_CONFIGURABLE_MASK);
            for (uint32_t r = 0; r < kConfigCount; ++r) {
                if ((live >> r & 1) && counts_el0_a64(applied[r])) a |= 1u << (r + kFixedCount);
            }
        }
        return a;
    }
    uint32_t thread_active() const {
        if (!thread_on) return 0;
        uint32_t cls = 0;
        if (thread_classes & KPC_CLASS_FIXED_MASK) cls |= kFixedBits;
        cls |= cfg_mask(thread_classes) << kFixedCount;
        return hw_active() & cls;
    }
    uint64_t rate(uint32_t counter) const {
        if (counter == 0) return kCyclesMilliPerNs;
        if (counter == 1) return kInstructionsMilliPerNs;
        uint16_t selector = static_cast<uint16_t>(applied[counter - kFixedCount]);
        if (zeroed.test(selector)) return 0;
        return rate_milli_for_selector(machine.gen, selector);
    }

    void settle_thread(ThreadRec *t, uint64_t now) {
        if (t->gen != gen) {
            t->gen = gen;
            t->has_buf = false;
            t->csw_seen = -1;
            std::fill(std::begin(t->acc), std::end(t->acc), 0);
        }
        if (!t->has_buf) return;
        uint64_t d = now > t->last_ns && cpu_time_counts ? now - t->last_ns : 0;
        uint32_t active = thread_active();
        for (uint32_t i = 0; i < kCounterCount; ++i) {
            if (active >> i & 1) t->acc[i] += d * rate(i);
        }
        t->last_ns = now;
    }
    void give_buffer(ThreadRec *t, uint64_t now) {
        settle_thread(t, now);
        if (t->has_buf) return;
        t->has_buf = true;
        t->last_ns = now;
    }
    void settle_cpus() {
        uint64_t now = clock_ns(CLOCK_MONOTONIC);
        uint64_t d = now > cpu_last_ns ? now - cpu_last_ns : 0;
        cpu_last_ns = now;
        uint32_t active = hw_active();
        if (!active) return;
        for (uint32_t c = 0; c < ncpu; ++c) {
            uint64_t busy_permille = 500 + (c * 97) % 400;  // each CPU 50-90 % busy
            for (uint32_t i = 0; i < kCounterCount; ++i) {
                if (active >> i & 1) cpu_acc[c * kCounterCount + i] += d * rate(i) * busy_permille / 1000;
            }
        }
    }
    // Bring every accumulator up to date under the current state; called before any state
    // change that affects which counters run (XNU accrues at context switches and reads).
    void settle_all() {
        for (ThreadRec *t : threads) settle_thread(t, clock_ns(t->clk));
        settle_cpus();
    }

    uint32_t thread_buffers() const {
        uint32_t n = 0;
        for (const ThreadRec *t : threads) n += (t->gen == gen && t->has_buf) ? 1 : 0;
        return n;
    }

    // Secure CPC (cpc_arm64_events.c): a release kernel allows only its board's list. The
    // lenient variant allows every selector of the chip's database (macOS 26 presumably).
    void set_default_allow_list() {
        allowed.reset();
        allowed.set(0);
        if (xnu_allow_list && machine.board != nullptr) {
            for (size_t i = 0; i < kXnuAllowListCount; ++i) {
                const XnuAllowList &l = kXnuAllowLists[i];
                if (std::strcmp(l.board, machine.board) != 0) continue;
                for (size_t j = 0; j < l.count; ++j) allowed.set(l.selectors[j]);
                return;
            }
        }
        for (const EventDef &e : events_for(machine.gen)) {
            if (e.fixed < 0) allowed.set(e.number);
        }
    }

    // Whether a thread without a counter buffer gets one at this read (kpc_thread.c).
    // Strict: a failed read allocates nothing; the buffer comes with the thread's next
    // context switch, seen here as its context-switch count moving since a failed read.
    bool buffer_arrives_at_read(ThreadRec *t, uint64_t now) {
        switch (lazy) {
        case Lazy::eager: return true;
        case Lazy::first_read:
            give_buffer(t, now);  // allocated by the failing read: exactly one read fails
            return false;
        case Lazy::strict: break;
        }
        long csw = own_context_switches();
        if (t->csw_seen >= 0 && csw > t->csw_seen) return true;
        t->csw_seen = csw;
        return false;
    }
    static long own_context_switches() {
        struct rusage ru;
        if (getrusage(RUSAGE_THREAD, &ru) != 0) return 0;
        return ru.ru_nvcsw + ru.ru_nivcsw;
    }

    bool set_machine(const char *name) {
        Machine m;
        if (!resolve_name(name, true, &m)) return false;
        settle_all();
        machine = m;
        machine_name = intern(name);
        set_default_allow_list();
        return true;
    }

    void reset_locked() {
        settle_all();
        root = env_flag("KPSIM_ROOT", true);
        pmu_busy = env_flag("KPSIM_PMU_BUSY", false);
        force_elsewhere = env_flag("KPSIM_FORCE_HELD", false);
        strict_first_read = env_flag("KPSIM_STRICT_FIRST_READ", false);
        std::string lazy_name = env_string("KPSIM_LAZY_BUFFER", "strict");
        lazy = lazy_name == "eager" ? Lazy::eager
             : lazy_name == "first-read" ? Lazy::first_read : Lazy::strict;
        xnu_allow_list = env_string("KPSIM_ALLOW_LIST", "xnu") != "db";
        apply_immediately = env_string("KPSIM_APPLY_CONFIG", "at-start") == "immediate";
        count_same_unforced = env_string("KPSIM_COUNT_BEFORE_FORCE", "smaller") == "same";
        read_kernel_instructions.clear();
        const std::string costs = env_string("KPSIM_READ_KERNEL_INSTRUCTIONS", "17700");
        for (size_t start = 0; start <= costs.size();) {
            size_t comma = costs.find(',', start);
            if (comma == std::string::npos) comma = costs.size();
            long long v = 0;
            if (!parse_int(costs.substr(start, comma - start), &v) || v < 0) {
                read_kernel_instructions.assign(1, 17700);  // as an unset variable
                break;
            }
            read_kernel_instructions.push_back(static_cast<uint64_t>(v));
            start = comma + 1;
        }
        counted_reads = 0;
        cpu_time_counts = env_flag("KPSIM_CPU_TIME_COUNTS", true);
        zeroed.reset();
        for_each_selector(env_string("KPSIM_ZERO", ""), [&](size_t sel) { zeroed.set(sel); });
        std::string db = env_string("KPSIM_DB", "a14");
        if (!set_machine(db.c_str())) {
            std::fprintf(stderr, "kperf_sim: KPSIM_DB=%s is not a known database; using a14\n",
                         db.c_str());
            set_machine("a14");
        }
        for_each_selector(env_string("KPSIM_DENY", ""), [&](size_t sel) { allowed.reset(sel); });
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        ncpu = static_cast<uint32_t>(std::min<long>(std::max<long>(n, 1), 256));

        force_mine = false;
        running_classes = 0;
        running_cfg_mask = 0;
        thread_on = false;
        thread_classes = 0;
        thread_classes_count = 0;
        std::fill(std::begin(stored), std::end(stored), 0);
        std::fill(std::begin(applied), std::end(applied), 0);
        ++gen;  // every thread loses its buffer and totals
        cpu_acc.assign(static_cast<size_t>(ncpu) * kCounterCount, 0);
        cpu_last_ns = clock_ns(CLOCK_MONOTONIC);
        calls = 0;
        kperf = KperfState();
        faults.clear();
        faults.add_spec(env_string("KPSIM_FAIL", ""), known_symbol, true);
    }

    // Entry bookkeeping shared by every kpc_/kperf_ function: count the call and fire a
    // pending fault. Returns true (and *err) when the call must fail.
    bool enter(const char *symbol, int *err) {
        ++calls;
        return faults.hit(symbol, err);
    }
    // kpc_sysctl(): ktrace_read_check() (root) for all but the public requests, then
    // EBUSY while another CPC owner holds the CPMU.
    int kpc_access(bool needs_root) const {
        if (needs_root && !root) return EPERM;
        if (pmu_busy) return EBUSY;
        return 0;
    }
    // kperf_sysctl(): ktrace_configure()/ktrace_read_check(); no CPMU check.
    int kperf_access() const { return root ? 0 : EPERM; }

    // Calls f(selector) for each item of "sel,sel" (decimal or 0x...), skipping bad ones.
    template <typename F>
    static void for_each_selector(const std::string &list, F f) {
        size_t start = 0;
        while (start < list.size()) {
            size_t comma = list.find(',', start);
            std::string item = list.substr(start, comma == std::string::npos ? std::string::npos
                                                                              : comma - start);
            long long v = 0;
            if (parse_int(item, &v) && v > 0 && v <= 0xFFFF) f(static_cast<size_t>(v));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
    }

    ThreadRec *self();
    void forget(ThreadRec *t) {
        threads.erase(std::remove(threads.begin(), threads.end(), t), threads.end());
    }
};

// Created when the library is loaded, destroyed when it is unloaded (dlclose or exit), so
// that a consumer dlclose()ing the simulator under LeakSanitizer sees no leak. glibc keeps
// the library loaded while any thread still has a ThreadHolder to destroy.
Kernel *g_kernel = nullptr;

Kernel &K() {
    if (g_kernel == nullptr) g_kernel = new Kernel();  // only before the constructor ran
    return *g_kernel;
}

struct ThreadHolder {
    ThreadRec *rec = nullptr;
    ~ThreadHolder() {
        if (rec == nullptr) return;
        if (g_kernel == nullptr) {  // library already finalised (process exit)
            delete rec;
            return;
        }
        Kernel &k = *g_kernel;
        std::lock_guard<std::mutex> lock(k.mu);
        k.forget(rec);  // thread exit frees its kpc buffer (kpc_thread_destroy)
        delete rec;
        rec = nullptr;
    }
};
thread_local ThreadHolder t_holder;

ThreadRec *Kernel::self() {
    if (t_holder.rec == nullptr) {
        auto *t = new ThreadRec();
        if (pthread_getcpuclockid(pthread_self(), &t->clk) != 0) t->clk = CLOCK_THREAD_CPUTIME_ID;
        t->gen = gen;
        threads.push_back(t);
        t_holder.rec = t;
    }
    return t_holder.rec;
}

int fail(int err) {
    errno = err;
    return -1;
}
uint32_t fail_u32(int err) {
    errno = err;
    return 0;
}

using Lock = std::lock_guard<std::mutex>;

__attribute__((constructor)) void kpsim_kernel_load() { (void)K(); }
__attribute__((destructor)) void kpsim_kernel_unload() {
    Kernel *k = g_kernel;
    g_kernel = nullptr;
    delete k;
}

}  // namespace

// ============================ kpc_* ============================

KPSIM_EXPORT int kpc_cpu_string(char *buf, size_t buf_size) {
    Kernel &k = K();
    std::string s;
    {
        Lock lock(k.mu);
        int err = 0;
        if (k.enter("kpc_cpu_string", &err)) return fail(err);
        s = cpu_id_string(k.machine.cpufamily);  // hw.* sysctls are public
    }
    if (buf == nullptr) return fail(EFAULT);
    if (buf_size < s.size() + 1) return fail(ENOMEM);  // stricter reading: no truncation
    std::memcpy(buf, s.c_str(), s.size() + 1);
    return static_cast<int>(s.size());
}

KPSIM_EXPORT uint32_t kpc_pmu_version(void) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_pmu_version", &err)) return fail_u32(err);
    // kpc.pmu_version is not one of the public kpc sysctls (kern_kpc.c): root required.
    if ((err = k.kpc_access(true))) return fail_u32(err);
    return KPC_PMU_ARM_APPLE;
}

KPSIM_EXPORT uint32_t kpc_get_counting(void) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_get_counting", &err)) return fail_u32(err);
    if ((err = k.kpc_access(true))) return fail_u32(err);
    return k.get_running();
}

KPSIM_EXPORT int kpc_set_counting(uint32_t classes) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_set_counting", &err)) return fail(err);
    if ((err = k.kpc_access(true))) return fail(err);
    k.settle_all();
    bool cfg_was_running = (k.running_classes & KPC_CLASS_CONFIGURABLE_MASK) && k.running_cfg_mask;
    uint32_t new_classes = classes;
    if (classes & KPC_CLASS_POWER_MASK) new_classes |= KPC_CLASS_CONFIGURABLE_MASK;
    uint32_t new_mask = k.cfg_mask(classes);
    if (new_mask != 0 && !cfg_was_running) {
        // macOS 26.6: the configuration reaches the counters only when counting starts.
        std::copy(std::begin(k.stored), std::end(k.stored), std::begin(k.applied));
    }
    k.running_classes = new_classes;
    k.running_cfg_mask = new_mask;
    return 0;
}

KPSIM_EXPORT uint32_t kpc_get_thread_counting(void) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_get_thread_counting", &err)) return fail_u32(err);
    if ((err = k.kpc_access(true))) return fail_u32(err);
    return k.thread_on ? k.thread_classes : 0;
}

KPSIM_EXPORT int kpc_set_thread_counting(uint32_t classes) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_set_thread_counting", &err)) return fail(err);
    if ((err = k.kpc_access(true))) return fail(err);
    k.settle_all();
    uint32_t count = k.counter_count(classes);
    if (classes == 0 || count == 0) {
        k.thread_on = false;  // classes stay stashed, buffers stay allocated (XNU)
        return 0;
    }
    k.thread_classes = classes;
    k.thread_classes_count = count;
    k.thread_on = true;
    // XNU schedules a T_KPC_ALLOC AST for the calling thread, which runs on the way back
    // to user space: the enabling thread has its buffer before its next call.
    if (!k.strict_first_read) k.give_buffer(k.self(), clock_ns(CLOCK_THREAD_CPUTIME_ID));
    return 0;
}

KPSIM_EXPORT uint32_t kpc_get_config_count(uint32_t classes) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_get_config_count", &err)) return fail_u32(err);
    if ((err = k.kpc_access(false))) return fail_u32(err);  // public, but EBUSY applies
    return k.reported_config_count(classes);
}

KPSIM_EXPORT uint32_t kpc_get_counter_count(uint32_t classes) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_get_counter_count", &err)) return fail_u32(err);
    if ((err = k.kpc_access(false))) return fail_u32(err);
    return k.reported_counter_count(classes);
}

KPSIM_EXPORT int kpc_get_config(uint32_t classes, kpc_config_t *config) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_get_config", &err)) return fail(err);
    if ((err = k.kpc_access(true))) return fail(err);
    if (k.config_count(classes) == 0) return fail(EINVAL);  // sysctl_getset_bigarray: size 0
    if ((classes & KPC_CLASS_RAWPMU_MASK) && !k.forced()) return fail(EPERM);
    if (config == nullptr) return fail(EFAULT);
    // Read back from the counters (get_counter_config): the applied words, as the
    // hardware reports them.
    uint32_t m = k.cfg_mask(classes);
    size_t out = 0;
    for (uint32_t r = 0; r < kConfigCount; ++r) {
        if (m >> r & 1) config[out++] = Kernel::readback(k.applied[r]);
    }
    return 0;
}

KPSIM_EXPORT int kpc_set_config(uint32_t classes, kpc_config_t *config) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_set_config", &err)) return fail(err);
    if ((err = k.kpc_access(true))) return fail(err);
    // The framework sends kpc_get_config_count(classes) words; the kernel maps them, in
    // order, onto the configurable counters it controls right now (2,3,4,8,9 without
    // force_all; 2..9 with it).
    uint32_t words = k.config_count(classes);
    if (words == 0) return fail(EINVAL);
    if (config == nullptr) return fail(EFAULT);
    if (classes & KPC_CLASS_POWER_MASK) return fail(EPERM);  // userspace cannot set POWER
    if ((classes & KPC_CLASS_RAWPMU_MASK) && !k.forced()) return fail(EPERM);
    uint32_t m = k.cfg_mask(classes);
    // Secure CPC: every selector must be on the allow-list, checked before any change.
    for (uint32_t i = 0; i < words; ++i) {
        if (!k.allowed.test(static_cast<size_t>(config[i] & 0xFFFF))) return fail(EPERM);
    }
    if (k.apply_immediately) k.settle_all();
    size_t in = 0;
    for (uint32_t r = 0; r < kConfigCount; ++r) {
        if (m >> r & 1) k.stored[r] = config[in++];
    }
    // macOS 15 and earlier program the counters at once; 26.6 waits for counting to start.
    if (k.apply_immediately) std::copy(std::begin(k.stored), std::end(k.stored), std::begin(k.applied));
    return 0;
}

KPSIM_EXPORT int kpc_get_cpu_counters(bool all_cpus, uint32_t classes, int *curcpu,
                                      uint64_t *buf) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_get_cpu_counters", &err)) return fail(err);
    if ((err = k.kpc_access(true))) return fail(err);
    if (k.counter_count(classes) == 0) return fail(EINVAL);
    if (buf == nullptr) return fail(EFAULT);
    k.settle_cpus();
    int cpu = sched_getcpu();
    if (cpu < 0) cpu = 0;
    cpu %= static_cast<int>(k.ncpu);
    uint32_t m = k.cfg_mask(classes);
    size_t out = 0;
    for (uint32_t c = 0; c < k.ncpu; ++c) {
        if (!all_cpus && c != static_cast<uint32_t>(cpu)) continue;
        const uint64_t *acc = &k.cpu_acc[static_cast<size_t>(c) * kCounterCount];
        if (classes & KPC_CLASS_FIXED_MASK) {
            buf[out++] = acc[0] / 1000;
            buf[out++] = acc[1] / 1000;
        }
        for (uint32_t r = 0; r < kConfigCount; ++r) {
            if (m >> r & 1) buf[out++] = acc[r + kFixedCount] / 1000;
        }
    }
    if (curcpu != nullptr) *curcpu = cpu;
    return 0;
}

#ifndef KPSIM_OMIT_KPC_GET_THREAD_COUNTERS
KPSIM_EXPORT int kpc_get_thread_counters(uint32_t tid, uint32_t buf_count, uint64_t *buf) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_get_thread_counters", &err)) return fail(err);
    if ((err = k.kpc_access(true))) return fail(err);
    if (tid != 0) return fail(EINVAL);
    ThreadRec *t = k.self();
    uint64_t now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    k.settle_thread(t, now);
    if (!t->has_buf) {
        // kpc_get_curthread_counters(): no buffer yet -> EINVAL (kpc_thread.c).
        if (!k.thread_on || !k.buffer_arrives_at_read(t, now)) return fail(EINVAL);
        k.give_buffer(t, now);
    }
    uint32_t count = k.thread_classes_count;
    if (buf == nullptr) return fail(EFAULT);
    if (buf_count < count) return fail(ENOMEM);  // sysctl_old_user: oldlen too small
    // Layout: fixed counters first, then the configurable counters of the thread classes.
    uint32_t out = 0;
    if (k.thread_classes & KPC_CLASS_FIXED_MASK) {
        for (uint32_t i = 0; i < kFixedCount && out < count; ++i) buf[out++] = t->acc[i] / 1000;
    }
    uint32_t m = k.cfg_mask(k.thread_classes);
    for (uint32_t r = 0; r < kConfigCount && out < count; ++r) {
        if (m >> r & 1) buf[out++] = t->acc[r + kFixedCount] / 1000;
    }
    while (out < count) buf[out++] = 0;
    // The read itself runs in the kernel, which the fixed instruction counter counts too
    // (about 17,700 instructions per call on an M4, published): the next read shows it.
    if (k.thread_active() & 0x2u) {
        const auto &costs = k.read_kernel_instructions;
        t->acc[1] += costs[k.counted_reads++ % costs.size()] * 1000;
    }
    return 0;
}
#endif

KPSIM_EXPORT int kpc_force_all_ctrs_set(int val) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_force_all_ctrs_set", &err)) return fail(err);
    if ((err = k.kpc_access(true))) return fail(err);
    // kpc_force_all_ctrs(): refuse if another task forced the counters.
    if (k.forced() && !k.force_mine) return fail(EACCES);
    bool want = val != 0;
    if (want == k.force_mine) return 0;
    k.settle_all();
    k.force_mine = want;
    return 0;
}

KPSIM_EXPORT int kpc_force_all_ctrs_get(int *val_out) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kpc_force_all_ctrs_get", &err)) return fail(err);
    if ((err = k.kpc_access(true))) return fail(err);
    if (val_out == nullptr) return fail(EFAULT);
    *val_out = k.forced() ? 1 : 0;
    return 0;
}

// ============================ kperf_* ============================

#define KPERF_ENTER(sym)                               \
    Kernel &k = K();                                   \
    Lock lock(k.mu);                                   \
    int err = 0;                                       \
    if (k.enter(sym, &err)) return fail(err);          \
    if ((err = k.kperf_access())) return fail(err);    \
    KperfState &kp = k.kperf

KPSIM_EXPORT int kperf_action_count_set(uint32_t count) {
    KPERF_ENTER("kperf_action_count_set");
    if (count == kp.actionc) return 0;
    if (count < kp.actionc || count > KPERF_ACTION_MAX) return fail(EINVAL);  // no shrinking
    kp.actionc = count;
    return 0;
}

KPSIM_EXPORT int kperf_action_count_get(uint32_t *count) {
    KPERF_ENTER("kperf_action_count_get");
    if (count == nullptr) return fail(EFAULT);
    *count = kp.actionc;
    return 0;
}

KPSIM_EXPORT int kperf_action_samplers_set(uint32_t actionid, uint32_t sample) {
    KPERF_ENTER("kperf_action_samplers_set");
    if (actionid == 0 || actionid > kp.actionc) return fail(EINVAL);
    if ((sample & KPERF_SAMPLER_PMC_THREAD) && (sample & KPERF_SAMPLER_PMC_CPU)) return fail(EINVAL);
    kp.samplers[actionid - 1] = sample;
    return 0;
}

KPSIM_EXPORT int kperf_action_samplers_get(uint32_t actionid, uint32_t *sample) {
    KPERF_ENTER("kperf_action_samplers_get");
    if (actionid > kp.actionc) return fail(EINVAL);
    if (sample == nullptr) return fail(EFAULT);
    *sample = actionid == 0 ? 0 : kp.samplers[actionid - 1];
    return 0;
}

KPSIM_EXPORT int kperf_action_filter_set_by_task(uint32_t actionid, int32_t port) {
    KPERF_ENTER("kperf_action_filter_set_by_task");
    if (actionid == 0 || actionid > kp.actionc) return fail(EINVAL);
    // kperf_port_to_pid(): an invalid port name gives -1 (no filter); any valid name is
    // taken to be this task's own port (there are no Mach ports here).
    kp.filter[actionid - 1] = (port == 0 || port == -1) ? -1 : static_cast<int32_t>(getpid());
    return 0;
}

KPSIM_EXPORT int kperf_action_filter_set_by_pid(uint32_t actionid, int32_t pid) {
    KPERF_ENTER("kperf_action_filter_set_by_pid");
    if (actionid == 0 || actionid > kp.actionc) return fail(EINVAL);
    kp.filter[actionid - 1] = pid;
    return 0;
}

KPSIM_EXPORT int kperf_timer_count_set(uint32_t count) {
    KPERF_ENTER("kperf_timer_count_set");
    if (kp.sampling) return fail(EBUSY);
    if (count > KPERF_TIMER_MAX) return fail(EINVAL);
    kp.timerc = count;
    return 0;
}

KPSIM_EXPORT int kperf_timer_count_get(uint32_t *count) {
    KPERF_ENTER("kperf_timer_count_get");
    if (count == nullptr) return fail(EFAULT);
    *count = kp.timerc;
    return 0;
}

KPSIM_EXPORT int kperf_timer_period_set(uint32_t actionid, uint64_t tick) {
    KPERF_ENTER("kperf_timer_period_set");
    uint32_t timer = actionid;  // Apple's header names it actionid; it is the timer id
    if (timer >= kp.timerc) return fail(EINVAL);
    if (kp.sampling) return fail(EBUSY);
    uint64_t min = kp.pet == timer ? kMinPetTicks : kMinTimerTicks;
    if (tick != 0 && tick < min) tick = min;
    kp.period[timer] = tick;
    return 0;
}

KPSIM_EXPORT int kperf_timer_period_get(uint32_t actionid, uint64_t *tick) {
    KPERF_ENTER("kperf_timer_period_get");
    if (actionid >= kp.timerc) return fail(EINVAL);
    if (tick == nullptr) return fail(EFAULT);
    *tick = kp.period[actionid];
    return 0;
}

KPSIM_EXPORT int kperf_timer_action_set(uint32_t actionid, uint32_t timerid) {
    KPERF_ENTER("kperf_timer_action_set");
    // (timer id, action id) despite the parameter names kept from ibireme's header.
    uint32_t timer = actionid, action = timerid;
    if (timer >= kp.timerc) return fail(EINVAL);
    if (kp.sampling) return fail(EBUSY);
    kp.timer_action[timer] = action;
    return 0;
}

KPSIM_EXPORT int kperf_timer_action_get(uint32_t actionid, uint32_t *timerid) {
    KPERF_ENTER("kperf_timer_action_get");
    if (actionid >= kp.timerc) return fail(EINVAL);
    if (timerid == nullptr) return fail(EFAULT);
    *timerid = kp.timer_action[actionid];
    return 0;
}

KPSIM_EXPORT int kperf_timer_pet_set(uint32_t timerid) {
    KPERF_ENTER("kperf_timer_pet_set");
    if (kp.sampling) return fail(EBUSY);
    if (timerid < kp.timerc) kp.period[timerid] = std::max(kp.period[timerid], kMinPetTicks);
    kp.pet = timerid;  // an out-of-range id disables PET
    return 0;
}

KPSIM_EXPORT int kperf_timer_pet_get(uint32_t *timerid) {
    KPERF_ENTER("kperf_timer_pet_get");
    if (timerid == nullptr) return fail(EFAULT);
    *timerid = kp.pet;
    return 0;
}

KPSIM_EXPORT int kperf_sample_set(uint32_t enabled) {
    KPERF_ENTER("kperf_sample_set");
    if (enabled) {
        if (kp.actionc == 0) return fail(ECANCELED);  // kperf_enable_sampling()
        kp.sampling = true;
    } else {
        kp.sampling = false;
    }
    return 0;
}

KPSIM_EXPORT int kperf_sample_get(uint32_t *enabled) {
    KPERF_ENTER("kperf_sample_get");
    if (enabled == nullptr) return fail(EFAULT);
    *enabled = kp.sampling ? 1 : 0;
    return 0;
}

KPSIM_EXPORT int kperf_reset(void) {
    KPERF_ENTER("kperf_reset");
    // kperf_reset(): stop sampling, reset timers, PET and actions. The action and timer
    // counts survive (kperf_action_reset / kptimer_reset keep actionc / g_ntimers).
    kp.sampling = false;
    for (uint32_t i = 0; i < KPERF_TIMER_MAX; ++i) {
        kp.period[i] = 0;
        kp.timer_action[i] = 0;
    }
    kp.pet = KPERF_PET_INACTIVE;
    for (uint32_t i = 0; i < KPERF_ACTION_MAX; ++i) {
        kp.samplers[i] = 0;
        kp.filter[i] = -1;
    }
    return 0;
}

// The tick helpers are computations with mach_timebase_info in the framework: no sysctl,
// no privilege check. Timebase: 24 MHz (numer 125, denom 3).
KPSIM_EXPORT uint64_t kperf_ns_to_ticks(uint64_t ns) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kperf_ns_to_ticks", &err)) return fail_u32(err);
    return ns / 125 * 3 + ns % 125 * 3 / 125;  // ns * 3 / 125 without overflow
}

KPSIM_EXPORT uint64_t kperf_ticks_to_ns(uint64_t ticks) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kperf_ticks_to_ns", &err)) return fail_u32(err);
    if (ticks / 3 > UINT64_MAX / 125) return UINT64_MAX;
    return ticks / 3 * 125 + ticks % 3 * 125 / 3;  // ticks * 125 / 3
}

KPSIM_EXPORT uint64_t kperf_tick_frequency(void) {
    Kernel &k = K();
    Lock lock(k.mu);
    int err = 0;
    if (k.enter("kperf_tick_frequency", &err)) return fail_u32(err);
    return kTickHz;
}

// ============================ kpsim_* controls ============================

KPSIM_EXPORT void kpsim_reset(void) {
    Kernel &k = K();
    Lock lock(k.mu);
    k.reset_locked();
}

KPSIM_EXPORT void kpsim_kernel_get_state(kpsim_kernel_state *out) {
    if (out == nullptr) return;
    Kernel &k = K();
    Lock lock(k.mu);
    kpsim_kernel_state s{};
    s.counting = k.get_running();
    s.thread_counting = k.thread_on ? k.thread_classes : 0;
    s.force_all_ctrs = k.forced() ? 1 : 0;
    s.force_owner = k.force_mine ? 1 : (k.force_elsewhere ? 2 : 0);
    for (uint32_t r = 0; r < kConfigCount; ++r) {
        s.config[r] = k.stored[r];
        s.config_words += k.stored[r] != 0 ? 1 : 0;
        s.applied_config_words += k.applied[r] != 0 ? 1 : 0;
    }
    s.thread_buffers = k.thread_buffers();
    s.calls = k.calls;
    *out = s;
}

KPSIM_EXPORT void kpsim_set_root(int is_root) {
    Kernel &k = K();
    Lock lock(k.mu);
    k.root = is_root != 0;
}

KPSIM_EXPORT void kpsim_set_pmu_busy(int busy) {
    Kernel &k = K();
    Lock lock(k.mu);
    k.pmu_busy = busy != 0;
}

KPSIM_EXPORT void kpsim_set_force_held_elsewhere(int held) {
    Kernel &k = K();
    Lock lock(k.mu);
    k.settle_all();
    k.force_elsewhere = held != 0;
    if (k.force_elsewhere) k.force_mine = false;  // only one task can hold it
}

KPSIM_EXPORT void kpsim_set_allow_list(const uint16_t *selectors, size_t count) {
    Kernel &k = K();
    Lock lock(k.mu);
    if (count == 0 || selectors == nullptr) {
        k.set_default_allow_list();
        return;
    }
    k.allowed.reset();
    k.allowed.set(0);  // cpc_event_allowed(): selector 0 is always allowed
    for (size_t i = 0; i < count; ++i) k.allowed.set(selectors[i]);
}

KPSIM_EXPORT void kpsim_deny_selector(uint16_t selector) {
    Kernel &k = K();
    Lock lock(k.mu);
    if (selector != 0) k.allowed.reset(selector);
}

KPSIM_EXPORT int kpsim_fail(const char *symbol, int nth, int err_no) {
    if (symbol == nullptr || nth < 1 || !known_symbol(symbol)) return -1;
    Kernel &k = K();
    Lock lock(k.mu);
    k.faults.add(symbol, nth, err_no);
    return 0;
}

KPSIM_EXPORT void kpsim_clear_faults(void) {
    Kernel &k = K();
    Lock lock(k.mu);
    k.faults.clear();
}

KPSIM_EXPORT int kpsim_set_chip(const char *db_name) {
    if (db_name == nullptr) return -1;
    Kernel &k = K();
    Lock lock(k.mu);
    return k.set_machine(db_name) ? 0 : -1;
}

KPSIM_EXPORT const char *kpsim_get_chip(void) {
    Kernel &k = K();
    Lock lock(k.mu);
    return k.machine_name;
}

KPSIM_EXPORT void kpsim_set_strict_first_read(int on) {
    Kernel &k = K();
    Lock lock(k.mu);
    k.strict_first_read = on != 0;
}

KPSIM_EXPORT uint32_t kpsim_counter_count(uint32_t classes) {
    Kernel &k = K();
    Lock lock(k.mu);
    return k.reported_counter_count(classes);
}

KPSIM_EXPORT uint32_t kpsim_ncpu(void) {
    Kernel &k = K();
    Lock lock(k.mu);
    return k.ncpu;
}
