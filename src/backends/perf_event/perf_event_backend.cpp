// The Linux backend: perf_event_open on the calling thread (pid=0, cpu=-1).
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "backends/perf_event/counter_probe.hpp"
#include "backends/perf_event/cpu_info.hpp"
#include "backends/perf_event/event_group.hpp"
#include "backends/perf_event/generic_map.hpp"
#include "backends/perf_event/native_names.hpp"
#include "backends/perf_event/perf_errors.hpp"
#include "backends/perf_event/process_counters.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/event_database.hpp"
#include "core/generic_events.hpp"

namespace kpc {
namespace perf {
namespace {

// Try to open `e` alone on this thread, disabled, to learn whether it can be counted. `why`
// names the event when `named`; otherwise it is the event's own reason (perf_errors.hpp).
int probe(const Event &e, std::string *why, int *err_out = nullptr, bool named = false) {
    perf_event_attr a = make_attr(e);
    a.disabled = 1;
    int fd = open_event(a, 0, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return KP_OK;
    }
    int err = errno;
    if (err_out) *err_out = err;
    return diagnose_open_error(err, is_hardware(e), false, why, named ? e.name : "");
}

// The generic "cycles" event, opened alone to learn what the kernel allows (access, user reads).
Event cycles_event() {
    Event cycles;
    cycles.name = "cycles";
    cycles.kind = KP_EVENT_CONFIGURABLE;
    Encoding enc = encode_generic(GenericId::cycles);
    cycles.perf_type = enc.type;
    cycles.perf_config = enc.config;
    return cycles;
}

class PerfEventBackend final : public Backend {
public:
    explicit PerfEventBackend(std::string user_reads_off)
        : shape_(detect_pmu()), user_reads_off_(std::move(user_reads_off)) {}

    kp_backend_t kind() const override { return KP_BACKEND_PERF_EVENT; }
    const char *name() const override { return "perf_event"; }
    const CpuInfo &cpu() const override { return shape_.cpu; }
    uint32_t fixed_counters() const override { return counters().fixed; }
    uint32_t configurable_counters() const override { return counters().configurable; }
    std::string counters_unknown() const override { return counters().unknown; }

    void check_access() const override {
        const Event cycles = cycles_event();
        std::string why;
        int status = probe(cycles, &why, nullptr, true);
        if (status == KP_OK) return;
        // No PMU at all is "unsupported" for the machine, "unavailable" for one event.
        if (status == KP_EUNAVAILABLE) status = KP_EUNSUPPORTED;
        fail(status, why);
    }

    void populate(EventDatabase &db) override {
        size_t n = 0;
        const GenericEvent *all = generic_events(&n);
        for (size_t i = 0; i < n; ++i) {
            Event e;
            Encoding enc = encode_generic(all[i].id);
            e.name = all[i].name;
            e.native_name = enc.native_name;
            e.description = all[i].description;
            e.generic = true;
            e.kind = all[i].software ? KP_EVENT_SOFTWARE : KP_EVENT_CONFIGURABLE;
            e.counts_kernel = all[i].software;  // hardware events are opened with exclude_kernel
            e.perf_type = enc.type;
            e.perf_config = enc.config;
            e.unit = perf_unit(enc.type, enc.config);
            e.selector = enc.config;
            if (!enc.unavailable.empty()) {
                e.available = false;
                e.unavailable_reason = enc.unavailable;
                db.add(std::move(e));
                continue;
            }
            std::string why;
            int err = 0;
            int status = probe(e, &why, &err);
            // Only "this machine cannot count it" makes an event unavailable; a
            // permission problem is reported by kp_sampler_access / kp_thread_new, and a
            // shortage (no free descriptor) by the kp_thread_new that still meets it.
            if (!is_transient(err) &&
                (status == KP_EUNAVAILABLE || status == KP_ECONFLICT || status == KP_EKERNEL)) {
                e.available = false;
                e.unavailable_reason = why;
                e.unavailable_os_code = err;
            }
            db.add(std::move(e));
        }
    }

    bool resolve_dynamic(std::string_view name, Event &out) override {
        return resolve_native(name, out);
    }

    // exclude_user/exclude_kernel (make_attr). The kernel honours them for hardware events
    // and for the software events it counts at a place in the code (page faults), not for
    // the clocks, which count time in every mode: refused there rather than ignored.
    void apply_modifiers(Event &e) const override {
        if (perf_unit(e.perf_type, e.perf_config) == KP_EVENT_UNIT_NANOSECONDS)
            fail(KP_EUNSUPPORTED, "event '" + e.name +
                                      "': the kernel ignores :u/:k for a clock (it counts the "
                                      "time of every mode); count it without them, or use "
                                      "kpc stat's user and sys times");
        int paranoid = paranoid_level();
        if (!e.exclude_kernel && paranoid > 1 && geteuid() != 0)
            fail(KP_EPERM, "event '" + e.name + "' counts kernel mode, which kernel.perf_event_paranoid = " +
                               std::to_string(paranoid) +
                               " forbids without CAP_PERFMON; set it to 1 or less (sysctl "
                               "kernel.perf_event_paranoid=1), run as root, or count user mode "
                               "only (:u)");
    }

    std::unique_ptr<ThreadCounters> open(const std::vector<const Event *> &events) override {
        for (const Event *e : events)
            if (!e->available)
                fail(KP_EUNAVAILABLE,
                     "event '" + e->name + "' cannot be counted here: " + e->unavailable_reason,
                     e->unavailable_os_code);
        return std::make_unique<EventGroup>(events, user_reads_off_);
    }

    std::unique_ptr<ProcessCounters> count_process(const ProcessTarget &target,
                                                   const std::vector<const Event *> &events,
                                                   const std::vector<int> &groups) override {
        switch (target.kind) {
            case ProcessTarget::Kind::spawned: return ProcessEvents::for_child(events, target.pid, groups);
            case ProcessTarget::Kind::attached: return ProcessEvents::attach(events, target.pid, groups);
            case ProcessTarget::Kind::every_cpu: break;
        }
        return ProcessEvents::system_wide(events, groups);
    }

    // What a handle of one hardware event (cycles) would say, before any has been made.
    const std::string &user_reads_refusal() const override {
        std::call_once(user_reads_asked_, [this] {
            UserReadFacts f;
            f.switched_off = user_reads_off_;
            f.arch = kUserReadArch;
            if (!user_read_refusal(f).empty()) {
                user_reads_refusal_ = user_read_refusal(f);
                return;
            }
            const Event cycles = cycles_event();
            try {
                EventGroup g({&cycles}, user_reads_off_);
                user_reads_refusal_ = g.user_reads_refusal();
            } catch (const Error &e) {
                user_reads_refusal_ = "not available: no hardware counter opens here (" +
                                      e.message() + ")";
            }
        });
        return user_reads_refusal_;
    }

    // perf_event counters are per-fd; nothing global to give back. kp_thread_t handles
    // refuse to start or sample after release and close their fds when freed.
    void release() override {}

private:
    // Probed on first use (Arm): a sampler that never asks opens no probe events.
    const CounterCount &counters() const {
        std::call_once(counted_, [this] {
            if (shape_.probe_arm) {
                counters_ = probe_arm_counters(shape_.cpu.pmu);
            } else {
                counters_.fixed = shape_.fixed;
                counters_.configurable = shape_.configurable;
                counters_.unknown = shape_.unknown;
            }
        });
        return counters_;
    }

    PmuShape shape_;
    std::string user_reads_off_;
    mutable std::once_flag user_reads_asked_;
    mutable std::string user_reads_refusal_;
    mutable std::once_flag counted_;
    mutable CounterCount counters_;
};

}  // namespace
}  // namespace perf

std::unique_ptr<Backend> make_perf_event_backend(const std::string &user_reads_off) {
    return std::make_unique<perf::PerfEventBackend>(user_reads_off);
}

}  // namespace kpc
