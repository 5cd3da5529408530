#include "backends/recount/recount_backend.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include "backends/recount/thread_counters.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/event_database.hpp"
#include "core/generic_events.hpp"
#include "kpc/kperf_raw.h"

namespace kpc::recount {
using namespace apple;  // libSystem, the macOS version and process totals, shared with kperf

namespace {

const char *const kNeedsKperf =
    "the recount backend reads only the counts the kernel keeps for every thread (cycles, "
    "instructions, their P/E split, CPU time); other PMU events need root and the kperf "
    "backend: run with sudo (KPC_BACKEND=kperf or auto)";

const char *const kSoftwareReason =
    "the recount backend reads only the kernel's per-thread cycles, instructions and CPU "
    "time; on macOS count this with the OS's own tools, on Linux use the perf_event backend";

std::string level_name(const LibSystem &lib, int level) {
    std::string name;
    std::string key = "hw.perflevel" + std::to_string(level) + ".name";
    return lib.sysctl_string(key.c_str(), name) ? name : "perf level " + std::to_string(level);
}

}  // namespace

RecountBackend::RecountBackend(const std::string &libsystem_path)
    : lib_(std::make_unique<LibSystem>(libsystem_path)) {
    std::string text;
    if (lib_->sysctl_string("kern.osproductversion", text)) version_ = parse_product_version(text);
    if (!version_.known() && lib_->sysctl_string("kern.osrelease", text))
        version_ = from_darwin_release(text);
    int v = 0;
    if (lib_->sysctl_int("hw.nperflevels", v) && v > 0) levels_ = v;
    if (lib_->sysctl_int("kern.precise_user_kernel_time", v)) precise_time_ = v;
    MachTimebase tb{0, 0};
    if (lib_->api().mach_timebase_info && lib_->api().mach_timebase_info(&tb) == 0 &&
        tb.numer != 0 && tb.denom != 0) {
        timebase_ = tb;
        have_timebase_ = true;
    }

    cpu_.id = "recount";
    if (!lib_->sysctl_string("machdep.cpu.brand_string", cpu_.name)) cpu_.name = "Mac";
    std::string levels = level_name(*lib_, 0);
    for (int i = 1; i < levels_; ++i) levels += ", " + level_name(*lib_, i);
    cpu_.pmu = "kernel per-thread counts (recount, macOS " + version_.text() + "; perf levels: " +
               levels + ")";
    probe_counting();
}

void RecountBackend::probe_counting() {
    const std::string on = " (macOS " + version_.text() + ", " + lib_->source() + ")";
    if (!lib_->api().thread_selfcounts) {
        access_status_ = KP_EUNSUPPORTED;
        access_message_ =
            "recount: thread_selfcounts is missing" + on +
            ": counting a thread's cycles and instructions without root needs macOS 12.3 or "
            "later (13.0 for P/E counts and times); on older macOS run as root, which uses "
            "the kperf backend";
        return;
    }
    uint64_t probe[2] = {0, 0};
    if (lib_->api().thread_selfcounts(kThscCpi, probe, sizeof probe) != 0) {
        access_errno_ = errno;
        if (access_errno_ == ENOTSUP || access_errno_ == ENOSYS) {
            access_status_ = KP_EUNSUPPORTED;
            kernel_counts_ = false;
            access_message_ =
                "recount: this kernel keeps no per-thread cycle and instruction counts "
                "(thread_selfcounts: " + errno_text(access_errno_) + ")" + on +
                ": macOS virtual machines and kernels built without CPU counters lack them; "
                "it needs macOS 12.3 or later running on the Mac itself (13.0 for P/E counts)";
        } else {
            access_status_ = KP_EKERNEL;
            access_message_ = "recount: thread_selfcounts failed" + on + ": " +
                              errno_text(access_errno_) + "; please report this";
        }
        return;
    }
    int monotonic = 1;
    if (lib_->sysctl_int("kern.monotonic.supported", monotonic) && monotonic == 0) {
        access_status_ = KP_EUNSUPPORTED;
        kernel_counts_ = false;
        access_message_ = "recount: the kernel does not run its fixed counters "
                          "(kern.monotonic.supported = 0)" + on +
                          ", so every count would read 0: an Intel Mac whose hypervisor or "
                          "CPU hides them";
    }
}

void RecountBackend::check_access() const {
    if (released_.load(std::memory_order_acquire))
        fail(KP_ESTATE, "the sampler was released (kp_sampler_release); create a new sampler to count again");
    if (access_status_ != KP_OK) fail(access_status_, access_message_, access_errno_);
}

std::string RecountBackend::unavailable_reason(const EventSpec &e) const {
    const bool per_level = e.level != Level::all;
    const bool time = is_time(e.quantity);
    if (!per_level && !time) return "";
    const char *what = per_level ? "P and E counts" : "CPU times";
    if (!version_.known())
        return std::string(what) + " need macOS 13.0 or later, and this macOS's version could "
               "not be read (kern.osproductversion, kern.osrelease)";
    if (!has_recount_kinds(version_))
        return std::string(what) + " need macOS 13.0 or later; this is macOS " + version_.text() +
               ", whose kernel keeps only each thread's total cycles and instructions";
    if (time && !have_timebase_)
        return "mach_timebase_info is missing from " + lib_->source() +
               ", so the kernel's mach ticks cannot be turned into nanoseconds";
    if (e.quantity == Quantity::system_time && precise_time_ == 0)
        return "this kernel counts kernel time as user time (kern.precise_user_kernel_time = 0); "
               "task-clock has both";
    return "";
}

Event RecountBackend::make_event(const EventSpec &e, const char *generic_description) const {
    Event ev;
    ev.name = e.name;
    ev.native_name = e.name;
    ev.generic = generic_description != nullptr;
    ev.description = generic_description ? generic_description : e.description;
    ev.description += is_time(e.quantity) ? " (the kernel's per-thread time, no root needed)"
                                          : " (the kernel's per-thread count, user and kernel "
                                            "mode, no root needed)";
    if (e.level == Level::efficiency && levels_ < 2)
        ev.description += "; this Mac has one perf level, so it reads 0";
    if (e.quantity == Quantity::user_time && precise_time_ == 0)
        ev.description += "; this kernel also counts kernel time here";
    ev.kind = is_time(e.quantity) ? KP_EVENT_SOFTWARE : KP_EVENT_FIXED;
    ev.unit = is_time(e.quantity) ? KP_EVENT_UNIT_NANOSECONDS : KP_EVENT_UNIT_COUNT;
    ev.counts_kernel = e.quantity != Quantity::user_time;
    ev.native = &e;
    ev.unavailable_reason = unavailable_reason(e);
    ev.available = ev.unavailable_reason.empty();
    return ev;
}

void RecountBackend::populate(EventDatabase &db) {
    size_t n = 0, n_generic = 0;
    const EventSpec *specs = recount_events(&n);
    const GenericEvent *generics = generic_events(&n_generic);
    // Generic names first: the recount events that have one, then every other, which
    // only kperf (or Linux) can count.
    for (size_t i = 0; i < n; ++i)
        if (const GenericEvent *g = find_generic(specs[i].name))
            db.add(make_event(specs[i], g->description));
    for (size_t i = 0; i < n_generic; ++i) {
        const GenericEvent &g = generics[i];
        if (find_recount_event(g.name)) continue;
        Event e;
        e.name = g.name;
        e.description = g.description;
        e.generic = true;
        e.kind = g.software ? KP_EVENT_SOFTWARE : KP_EVENT_CONFIGURABLE;
        e.unit = g.unit;
        e.available = false;
        e.unavailable_reason = g.software ? kSoftwareReason : kNeedsKperf;
        db.add(std::move(e));
    }
    for (size_t i = 0; i < n; ++i)
        if (!find_generic(specs[i].name)) db.add(make_event(specs[i], nullptr));
}

void RecountBackend::apply_modifiers(Event &e) const {
    const auto *spec = static_cast<const EventSpec *>(e.native);
    const bool both = !e.exclude_user && !e.exclude_kernel;
    if (spec && !is_time(spec->quantity) && both) return;
    if (spec && is_time(spec->quantity))
        fail(KP_EUNSUPPORTED, "event '" + e.name + "': the recount backend takes no :u/:k on a "
                                  "time; its user-time and system-time events are the time of "
                                  "each mode");
    fail(KP_EUNSUPPORTED,
         "event '" + e.name + "': the recount backend cannot count one mode alone: the kernel "
                              "keeps one total of instructions and cycles over user and kernel "
                              "mode (thread_selfcounts, proc_pid_rusage), with no split by mode. "
                              "Count it without a modifier (or ':uk', the same); the kperf "
                              "backend (root) counts configurable events in user mode only");
}

std::string RecountBackend::unknown_event_hint() const {
    return "the recount backend (no root) counts only cycles, instructions, p-cycles, "
           "e-cycles, p-instructions, e-instructions, task-clock, user-time and system-time; "
           "PMU events need root and the kperf backend (run with sudo)";
}

std::unique_ptr<ThreadCounters> RecountBackend::open(const std::vector<const Event *> &events) {
    check_access();
    if (events.size() > KP_KPC_MAX_COUNTERS)
        fail(KP_EINVAL, "recount: " + std::to_string(events.size()) +
                            " events in one kp_thread_t; at most " +
                            std::to_string(KP_KPC_MAX_COUNTERS) + " fit");
    ThreadLayout layout;
    layout.efficiency_first = efficiency_entry_first(version_);
    layout.levels = levels_;
    std::vector<const EventSpec *> specs;
    for (const Event *e : events) {
        if (!e->available)
            fail(KP_EUNAVAILABLE, "event '" + e->name + "' cannot be counted here: " +
                                      e->unavailable_reason);
        const auto *spec = static_cast<const EventSpec *>(e->native);
        if (!spec) fail(KP_EUNAVAILABLE, "event '" + e->name + "' is not a recount event");
        layout.per_level = layout.per_level || spec->level != Level::all;
        layout.with_times = layout.with_times || is_time(spec->quantity);
        specs.push_back(spec);
    }
    return std::make_unique<RecountThreadCounters>(lib_->api().thread_selfcounts, timebase_,
                                                   layout, specs);
}

// Another process's totals: macOS lets the caller read them when both have the same
// effective uid, or when the caller holds PRIV_GLOBAL_PROC_INFO, as root does; else EPERM
// (proc_pid_rusage → proc_security_policy(p, PROC_INFO_CALL_PIDRUSAGE, flavor,
// CHECK_SAME_USER), bsd/kern/proc_info.c, xnu-11417). A sandbox (MAC) may refuse too. No
// task port or entitlement is needed. Totals never multiplex: groups change nothing.
std::unique_ptr<ProcessCounters> RecountBackend::count_process(const ProcessTarget &target,
                                                               const std::vector<const Event *> &events,
                                                               const std::vector<int> &groups) {
    if (target.kind == ProcessTarget::Kind::every_cpu)
        return Backend::count_process(target, events, groups);  // refused, with why
    std::unique_ptr<RusageProcessCounters> counters = open_rusage(events, target.pid);
    if (target.kind == ProcessTarget::Kind::attached) {
        if (!counters->counts_any()) counters->require_all_events();  // throws: nothing to count
        counters->count_from_now();
    }
    return counters;
}

std::unique_ptr<RusageProcessCounters> RecountBackend::open_rusage(const std::vector<const Event *> &events,
                                                                   int pid) {
    if (released_.load(std::memory_order_acquire))
        fail(KP_ESTATE, "the sampler was released (kp_sampler_release); create a new sampler to count again");
    if (!lib_->api().proc_pid_rusage)
        fail(KP_EUNSUPPORTED, "recount: proc_pid_rusage is missing from " + lib_->source() +
                                  "; counting a command needs macOS 10.13 or later");
    std::vector<RusageField> fields;
    for (const Event *e : events) {
        RusageField f;
        const auto *spec = static_cast<const EventSpec *>(e->native);
        if (!e->available || !spec) {
            f.status = KP_EUNAVAILABLE;
            f.error = e->available ? "'" + e->name + "' is not a recount event" : e->unavailable_reason;
        } else if (!is_time(spec->quantity) && !kernel_counts_) {
            f.status = KP_EUNSUPPORTED;  // the rusage fields exist but read 0 on such kernels
            f.error = access_message_;
        } else {
            f.spec = spec;
        }
        fields.push_back(std::move(f));
    }
    const int flavor = has_recount_kinds(version_) ? kRusageInfoV6 : kRusageInfoV4;
    return std::make_unique<RusageProcessCounters>(*lib_, timebase_, flavor, levels_,
                                                   std::move(fields), pid);
}

}  // namespace kpc::recount

namespace kpc {

std::unique_ptr<Backend> make_recount_backend(const std::string &libsystem_path) {
    return std::make_unique<recount::RecountBackend>(libsystem_path);
}

}  // namespace kpc
