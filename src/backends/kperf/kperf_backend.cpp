#include "backends/kperf/kperf_backend.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "backends/kperf/generic_map.hpp"
#include "backends/kperf/kperf_errors.hpp"
#include "backends/kperf/kpc_program.hpp"
#include "backends/kperf/split_process_counters.hpp"
#include "backends/kperf/system_counters.hpp"
#include "backends/kperf/thread_counters.hpp"
#include "core/error.hpp"
#include "core/event_database.hpp"
#include "core/generic_events.hpp"

namespace kpc::kperf {
namespace {

int lowest_bit(uint32_t m) {
    for (int i = 0; i < 32; ++i)
        if (m >> i & 1u) return i;
    return -1;
}

std::string hex(uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%x", v);
    return b;
}

std::string label_of(const Event &e) {
    return e.generic ? e.name + " (" + e.native_name + ")" : e.name;
}

// kpc_get_counter_count(CONFIGURABLE), a public sysctl; 0 when the kernel refuses it.
uint32_t configurable_counter_count(const kp_kperf_api_t &api) {
    errno = 0;
    uint32_t n = api.kpc_get_counter_count(KP_KPC_CLASS_CONFIGURABLE_MASK);
    return errno ? 0 : n;
}

// kpep_config_add_event's flag: a configurable counter is asked for user mode, which is
// all a release kernel lets it count (secure CPC); a fixed counter counts every mode
// whatever it is asked, so it is asked for nothing else.
uint32_t add_flag(bool fixed) { return fixed ? KP_KPEP_ADD_ALL_MODES : KP_KPEP_ADD_USER_ONLY; }

const char *const kConfigurableUserOnly =
    "configurable counters count user mode only: release macOS kernels drop kernel-mode (EL1) "
    "counting from every configuration word (secure CPC), and kpep offers no kernel-only mode";

const char *const kSoftwareReason =
    "software events are counted by the operating system, and the kperf backend reads only "
    "the CPU's PMU; on macOS time the thread with clock_gettime(CLOCK_THREAD_CPUTIME_ID), on "
    "Linux use the perf_event backend";

}  // namespace

KperfBackend::KperfBackend(const std::string &kperf_path, const std::string &kperfdata_path,
                           const std::string &libsystem_path)
    : libsystem_path_(libsystem_path),
      frameworks_(kperf_path, kperfdata_path),
      kernel_(KernelState::for_library(frameworks_.kperf_handle())),
      db_(nullptr, DbDeleter{&frameworks_.api()}) {
    const kp_kperf_api_t &api = frameworks_.api();
    kp_kpep_db_t *db = nullptr;
    if (int rc = api.kpep_db_create(nullptr, &db))
        throw_kpep("kpep_db_create", rc,
                   " while opening this CPU's event database (/usr/share/kpep); a virtual "
                   "machine or an unsupported Mac has none");
    if (!db) fail(KP_EFRAMEWORK, "kperfdata: kpep_db_create returned no database");
    db_.reset(db);

    view_ = read_database(api, db);
    for (size_t i = 0; i < view_.events.size(); ++i) by_ptr_.emplace(view_.events[i].ptr, i);
    chip_ = identify_chip(view_.name, view_.api_name, view_.marketing_name, view_.architecture);
    cpu_ = CpuInfo{chip_.db_name, chip_.name, chip_.pmu};

    size_t fixed = 0, config = 0;
    if (int rc = api.kpep_db_counters_count(db, KP_KPC_CLASS_FIXED_MASK, &fixed))
        throw_kpep("kpep_db_counters_count", rc);
    if (int rc = api.kpep_db_counters_count(db, KP_KPC_CLASS_CONFIGURABLE_MASK, &config))
        throw_kpep("kpep_db_counters_count", rc);
    if (fixed + config > KP_KPC_MAX_COUNTERS)
        fail(KP_ELAYOUT, "kperfdata reports " + std::to_string(fixed) + " fixed and " +
                             std::to_string(config) + " configurable counters; at most 32 exist");

    kernel_config_before_ = configurable_counter_count(api);
    // From here nothing fails: the destructor gives the counters back.
    std::lock_guard<std::mutex> lock(access_mu_);
    access_status_ = kernel_->acquire_force(api, &access_message_, &access_os_code_);
    forced_ = access_status_ == KP_OK;
    if (forced_) note_forced_count();
    // Until the counters are forced the kernel keeps the Power Manager's (5-7) out of the
    // configurable class, and kperfdata may count as it does (an M4: 5, then 8). The
    // kernel's count after forcing is what kpc_set_config obeys. Unforced (no root:
    // nothing counts anyway), the larger count is the nearer to what forcing would give.
    const size_t kernel = forced_ ? kernel_config_after_
                                  : std::max<size_t>(config, kernel_config_before_);
    if (kernel != 0 && fixed + kernel <= KP_KPC_MAX_COUNTERS) config = kernel;  // 0: unknown
    fixed_count_ = static_cast<uint32_t>(fixed);
    config_count_ = static_cast<uint32_t>(config);
    fixed_bits_ = fixed ? ((1u << fixed) - 1u) : 0u;
    config_bits_ = config ? (((1u << config) - 1u) << fixed) : 0u;
    for (const EventFields &f : view_.events) {
        if (is_fixed(f) && (f.mask & fixed_bits_)) {
            fixed_anchor_ = const_cast<kp_kpep_event_t *>(f.ptr);
            break;
        }
    }
}

void KperfBackend::note_forced_count() const {
    kernel_config_after_ = configurable_counter_count(frameworks_.api());
}

kp_kperf_info_t KperfBackend::kperf_info() const {
    kp_kperf_info_t out{};
    out.db_name = view_.name.c_str();
    out.db_api_name = view_.api_name.c_str();
    out.marketing_name = view_.marketing_name.c_str();
    out.event_stride = view_.event_stride;
    out.chip_known = chip_.generation != Generation::unknown;
    out.configurable_before_force = kernel_config_before_;
    std::lock_guard<std::mutex> lock(access_mu_);
    out.configurable_after_force = kernel_config_after_;
    return out;
}

KperfBackend::~KperfBackend() {
    try {
        release();
    } catch (...) {
        // Destruction cannot report; release() did all it could.
    }
}

void KperfBackend::check_access() const {
    std::lock_guard<std::mutex> lock(access_mu_);
    if (released_.load(std::memory_order_acquire))
        fail(KP_ESTATE, "the sampler was released (kp_sampler_release); create a new sampler to count again");
    if (forced_) return;
    // Whatever blocked us at creation (another tool, missing root) may have gone away.
    std::string message;
    int os_code = 0;
    int status = kernel_->acquire_force(frameworks_.api(), &message, &os_code);
    if (status == KP_OK) {
        forced_ = true;
        note_forced_count();
        return;
    }
    access_status_ = status;
    access_message_ = message;
    access_os_code_ = os_code;
    fail(status, message, os_code);
}

void KperfBackend::release() {
    std::lock_guard<std::mutex> lock(access_mu_);
    released_.store(true, std::memory_order_release);
    const kp_kperf_api_t &api = frameworks_.api();
    std::string problems;
    int os_code = 0;
    try {
        kernel_->stop_session(api, this);
    } catch (const Error &e) {
        problems = e.message();
        os_code = e.os_code();
    }
    if (forced_) {
        forced_ = false;
        try {
            kernel_->release_force(api);
        } catch (const Error &e) {
            problems += (problems.empty() ? "" : "; ") + e.message();
            if (!os_code) os_code = e.os_code();
        }
    }
    if (!problems.empty()) fail(KP_EKERNEL, problems, os_code);
}

bool KperfBackend::is_fixed(const EventFields &f) const {
    // Fixed events say so by a flag or by a mask that names only fixed counters.
    return f.fixed_flag || (f.mask != 0 && (f.mask & ~fixed_bits_) == 0);
}

uint32_t KperfBackend::effective_mask(const EventFields &f) const {
    const uint32_t available = fixed_bits_ | config_bits_;
    if (is_fixed(f)) return f.mask & fixed_bits_;
    if (f.mask == 0) return config_bits_;  // no counters_mask in the plist: any configurable
    return f.mask & available;
}

Event KperfBackend::native_event(const EventFields &f) const {
    Event e;
    e.name = f.name;
    e.native_name = f.name;
    e.description = f.description;
    if (f.alias) e.alias = f.alias, e.has_alias = true;
    if (f.errata) e.errata = f.errata, e.has_errata = true;
    if (f.fallback) e.fallback = f.fallback, e.has_fallback = true;
    e.counters_mask = effective_mask(f);
    const bool fixed = is_fixed(f);
    e.kind = fixed ? KP_EVENT_FIXED : KP_EVENT_CONFIGURABLE;
    e.fixed_counter = fixed ? lowest_bit(e.counters_mask) : -1;
    // Fixed counters always count every mode; configurable ones are programmed user-only.
    e.counts_kernel = fixed;
    e.selector = f.number;
    e.native = f.ptr;
    if (e.counters_mask == 0) {
        e.available = false;
        e.unavailable_reason = "its counters_mask " + hex(f.mask) +
                               " names no counter this machine has";
    }
    return e;
}

void KperfBackend::populate(EventDatabase &db) {
    std::lock_guard<std::mutex> lock(kpep_mu_);
    const kp_kperf_api_t &api = frameworks_.api();
    size_t n = 0;
    const GenericEvent *generics = generic_events(&n);
    for (size_t i = 0; i < n; ++i) {
        const GenericEvent &g = generics[i];
        Event e;
        e.name = g.name;
        e.description = g.description;
        e.generic = true;
        if (g.software) {
            e.kind = KP_EVENT_SOFTWARE;
            e.unit = g.unit;
            e.available = false;
            e.unavailable_reason = kSoftwareReason;
            db.add(std::move(e));
            continue;
        }
        GenericMapping m = generic_candidates(g.id, chip_.generation);
        // Every candidate the database has, in order: the first is the event's identity,
        // the others stand in if the kernel refuses it (program()).
        std::vector<kp_kpep_event_t *> &found_all = generic_alternatives_[e.name];
        for (const char *candidate : m.candidates) {
            kp_kpep_event_t *ev = nullptr;
            int rc = api.kpep_db_event(db_.get(), candidate, &ev);
            if (rc == KP_KPEP_ERR_EVENT_NOT_FOUND || (rc == 0 && !ev)) continue;
            if (rc != 0) throw_kpep("kpep_db_event", rc, std::string(" looking up ") + candidate);
            if (std::find(found_all.begin(), found_all.end(), ev) == found_all.end())
                found_all.push_back(ev);
        }
        kp_kpep_event_t *found = found_all.empty() ? nullptr : found_all.front();
        if (found) {
            EventFields f = fields_of(found);
            Event native = native_event(f);
            native.name = e.name;
            native.description = e.description;
            if (!m.note.empty()) native.description += " (" + chip_.name + ": " + m.note + ")";
            native.generic = true;
            db.add(std::move(native));
            continue;
        }
        e.kind = KP_EVENT_CONFIGURABLE;
        e.available = false;
        e.native_name = m.candidates.empty() ? "" : m.candidates.front();
        if (chip_.generation == Generation::unknown) {
            e.unavailable_reason = "the CPU (kpep database '" + chip_.db_name + "') is " + m.note;
        } else if (m.candidates.empty()) {
            e.unavailable_reason = "not on " + chip_.name + " (" + chip_.db_name + "): " + m.note;
        } else {
            std::string names;
            for (const char *c : m.candidates) names += (names.empty() ? "" : ", ") + std::string(c);
            e.unavailable_reason = "not on " + chip_.name + " (" + chip_.db_name +
                                   "): its kpep database has none of " + names;
        }
        db.add(std::move(e));
    }
    for (const EventFields &f : view_.events) db.add(native_event(f));
}

bool KperfBackend::resolve_dynamic(std::string_view name, Event &out) {
    // kpep_db_event also knows aliases ("Cycles", "Instructions").
    std::lock_guard<std::mutex> lock(kpep_mu_);
    kp_kpep_event_t *ev = nullptr;
    const std::string key(name);
    int rc = frameworks_.api().kpep_db_event(db_.get(), key.c_str(), &ev);
    if (rc == KP_KPEP_ERR_EVENT_NOT_FOUND || (rc == 0 && !ev)) return false;
    if (rc != 0) throw_kpep("kpep_db_event", rc, " looking up '" + key + "'");
    EventFields f = fields_of(ev);
    out = native_event(f);
    out.name = key;
    return true;
}

void KperfBackend::apply_modifiers(Event &e) const {
    const bool fixed = e.kind == KP_EVENT_FIXED;
    if (e.exclude_user)  // ":k": a modifier always keeps one mode, so this is kernel only
        fail(KP_EUNSUPPORTED,
             "event '" + e.name + "': the kperf backend cannot count kernel mode alone: " +
                 (fixed ? std::string("a fixed counter counts user and kernel mode and cannot leave "
                                      "either out")
                        : std::string(kConfigurableUserOnly)) +
                 ". Count it without ':k'");
    if (!e.exclude_user && !e.exclude_kernel) {  // ":uk": what a fixed counter counts
        if (fixed) return;
        fail(KP_EUNSUPPORTED, "event '" + e.name + "': cannot count kernel mode on the kperf backend: " +
                                  kConfigurableUserOnly + ". Use ':u' (what it counts without a "
                                                          "modifier too)");
    }
    if (!fixed) return;  // ":u": what a configurable counter counts anyway
    // A fixed counter counts the kernel too (the kernel forces its EL0 and EL1 enables):
    // a generic event moves to its configurable candidate, if the chip has one.
    // (Session has marked the copy non-generic; generic names are the keys of this map.)
    auto alt = generic_alternatives_.find(e.name.substr(0, e.name.rfind(':')));
    const bool generic = alt != generic_alternatives_.end();
    if (generic) {
        for (kp_kpep_event_t *candidate : alt->second) {
            EventFields f = fields_of(candidate);
            if (is_fixed(f)) continue;
            Event moved = native_event(f);
            moved.name = e.name;
            moved.lookup_key = e.lookup_key;
            moved.looked_up = e.looked_up;
            moved.modified = e.modified;
            moved.exclude_user = e.exclude_user;
            moved.exclude_kernel = e.exclude_kernel;
            moved.counts_kernel = false;
            moved.description = e.description + " (user mode only, on " + f.name +
                                ", a configurable counter: the fixed one counts kernel mode too)";
            e = std::move(moved);
            return;
        }
    }
    std::string instead = e.has_fallback ? "; its configurable equivalent '" + e.fallback +
                                               ":u' can"
                                         : "";
    fail(KP_EUNSUPPORTED,
         "event '" + e.name + "': " + e.native_name +
             " is on a fixed counter, which counts user and kernel mode on Apple's PMU and "
             "cannot leave the kernel out" +
             (generic ? "; " + chip_.name + " has no configurable event for it" : instead) +
             ". Count it without ':u'");
}

EventFields KperfBackend::fields_of(const kp_kpep_event_t *ev) const {
    // Events found by alias may lie outside the listed array; read those directly.
    auto it = by_ptr_.find(ev);
    return it != by_ptr_.end() ? view_.events[it->second]
                               : read_event(frameworks_.api(), ev, view_.event_stride);
}

ProgramEvent KperfBackend::program_event(const Event &e) const {
    if (!e.available)
        fail(KP_EUNAVAILABLE, "event '" + e.name + "' cannot be counted here: " +
                                  e.unavailable_reason);
    if (!e.native) fail(KP_EUNAVAILABLE, "event '" + e.name + "' is not a kperf event");
    auto *native = static_cast<kp_kpep_event_t *>(const_cast<void *>(e.native));
    if (!refused_.count(native))
        return ProgramEvent{label_of(e), native, e.counters_mask, add_flag(e.kind == KP_EVENT_FIXED)};
    auto alt = e.generic ? generic_alternatives_.find(e.name) : generic_alternatives_.end();
    std::string tried = e.native_name;
    if (alt != generic_alternatives_.end()) {
        for (kp_kpep_event_t *candidate : alt->second) {
            EventFields f = fields_of(candidate);
            if (refused_.count(candidate)) {
                if (candidate != native) tried += ", " + f.name;
                continue;
            }
            return ProgramEvent{e.name + " (" + f.name + ")", candidate, effective_mask(f),
                                add_flag(is_fixed(f))};
        }
    }
    fail(KP_EUNAVAILABLE,
         "event '" + e.name + "' cannot be counted on this macOS: the kernel refuses " +
             (tried == e.native_name ? "its selector (" + tried + ")"
                                     : "every candidate (" + tried + ")") +
             " (kpc_set_config: EPERM): it is not on the kernel's secure allow-list of "
             "countable events for this chip. Leave it out or pick another event (kpc list)",
         EPERM);
}

bool KperfBackend::counted_instead(const Event &e, Event &out) {
    std::lock_guard<std::mutex> lock(kpep_mu_);
    const auto *native = static_cast<const kp_kpep_event_t *>(e.native);
    if (!e.available || !e.generic || !refused_.count(native)) return false;
    // What program() chose: refusals only grow, and the candidate was just accepted.
    const EventFields f = fields_of(program_event(e).event);
    out = native_event(f);
    out.name = e.name;
    out.generic = true;
    out.description = e.description + " (counted on " + f.name + ": the kernel refuses " +
                      e.native_name + ")";
    out.lookup_key = e.name + " counted on " + f.name;  // not the listed entry's name
    return true;
}

KpcProgram KperfBackend::program(const std::vector<const Event *> &events) {
    check_access();
    const kp_kperf_api_t &api = frameworks_.api();
    const uint32_t available = fixed_bits_ | config_bits_;
    // The kernel refuses a whole configuration (EPERM) if one selector is not on its
    // secure allow-list. Each refusal found is remembered; a generic event then falls back
    // to its next candidate. Every round refuses at least one more event, so this ends.
    for (;;) {
        std::vector<ProgramEvent> pe;
        KpcProgram prog;
        {
            std::lock_guard<std::mutex> lock(kpep_mu_);
            for (const Event *e : events) pe.push_back(program_event(*e));
            prog = build_program(api, db_.get(), pe, available, fixed_bits_, fixed_anchor_);
        }
        if (kernel_->prepare(api, prog)) return prog;

        std::lock_guard<std::mutex> lock(kpep_mu_);
        std::vector<KpcProgram> singles;
        for (const ProgramEvent &one : pe)
            singles.push_back(
                build_program(api, db_.get(), {one}, available, fixed_bits_, fixed_anchor_));
        std::vector<bool> refused = kernel_->refused(api, singles);
        bool found = false;
        for (size_t i = 0; i < pe.size(); ++i)
            if (refused[i]) found = refused_.insert(pe[i].event).second || found;
        if (!found)
            fail(KP_EUNAVAILABLE,
                 "kperf: the kernel refused the counter configuration for {" + prog.events +
                     "} (kpc_set_config: EPERM), although it accepts each event alone. Count "
                     "them in separate runs",
                 EPERM);
    }
}

std::unique_ptr<ThreadCounters> KperfBackend::open(const std::vector<const Event *> &events) {
    KpcProgram prog = program(events);
    return std::make_unique<KperfThreadCounters>(frameworks_.api(), kernel_, this, released_,
                                                 std::move(prog));
}

std::unique_ptr<ProcessCounters> KperfBackend::count_process(const ProcessTarget &target,
                                                             const std::vector<const Event *> &events,
                                                             const std::vector<int> & /*groups*/) {
    if (target.kind == ProcessTarget::Kind::spawned)
        if (std::unique_ptr<ProcessCounters> split = open_split_process(events, target.pid))
            return split;
    return std::make_unique<SystemCounters>(frameworks_.api(), kernel_, this, released_,
                                            program(events));
}

std::unique_ptr<ProcessCounters> KperfBackend::open_split_process(
    const std::vector<const Event *> &events, int pid) {
    // The fixed counters' events are what the kernel also keeps per process.
    std::vector<apple::Quantity> totals;
    std::vector<size_t> own, system;
    std::vector<const Event *> system_events;
    for (size_t i = 0; i < events.size(); ++i) {
        const Event &e = *events[i];
        const bool fixed = e.available && e.kind == KP_EVENT_FIXED;
        if (fixed && (e.native_name == "FIXED_CYCLES" || e.native_name == "FIXED_INSTRUCTIONS")) {
            totals.push_back(e.native_name == "FIXED_CYCLES" ? apple::Quantity::cycles
                                                             : apple::Quantity::instructions);
            own.push_back(i);
        } else {
            system.push_back(i);
            system_events.push_back(&e);
        }
    }
    if (own.empty()) return nullptr;
    std::unique_ptr<apple::LibSystem> lib;
    try {
        lib = std::make_unique<apple::LibSystem>(libsystem_path_);
    } catch (const Error &) {
        return nullptr;  // no libSystem here (Linux without KPC_LIBSYSTEM_PATH): system-wide
    }
    // A kernel without running fixed counters (a VM) keeps no totals: they would read 0.
    int monotonic = 0;
    if (!lib->api().proc_pid_rusage || !lib->sysctl_int("kern.monotonic.supported", monotonic) ||
        monotonic == 0)
        return nullptr;
    check_access();  // the kperf backend needs root, whatever the source
    std::unique_ptr<SystemCounters> system_wide;
    if (!system_events.empty())
        system_wide = std::make_unique<SystemCounters>(frameworks_.api(), kernel_, this, released_,
                                                       program(system_events));
    auto rusage = apple::RusageProcessCounters::totals(*lib, totals, pid);
    return std::make_unique<SplitProcessCounters>(std::move(lib), std::move(rusage), std::move(own),
                                                  std::move(system_wide), std::move(system));
}

}  // namespace kpc::kperf

namespace kpc {

std::unique_ptr<Backend> make_kperf_backend(const std::string &kperf_path,
                                            const std::string &kperfdata_path,
                                            const std::string &libsystem_path) {
    return std::make_unique<kperf::KperfBackend>(kperf_path, kperfdata_path, libsystem_path);
}

}  // namespace kpc
