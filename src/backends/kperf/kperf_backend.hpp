// The Apple backend: kperf.framework / kperfdata.framework loaded with dlopen.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backends/kperf/chip.hpp"
#include "backends/kperf/frameworks.hpp"
#include "backends/kperf/kernel_state.hpp"
#include "backends/kperf/kpc_program.hpp"
#include "backends/kperf/kpep_layout.hpp"
#include "core/backend.hpp"
#include "kpc/errors.h"
#include "kpc/kperf_raw.h"

namespace kpc::kperf {

class KperfBackend final : public Backend {
public:
    // Loads both frameworks, opens this CPU's kpep database, checks its layout, identifies
    // the chip and takes the counters from the Power Manager. Lack of permission is not an
    // error here (check_access reports it); everything else throws. `libsystem_path`: where
    // kpc stat finds proc_pid_rusage (as for the recount backend; "" = the process's own
    // libSystem on macOS, none elsewhere).
    KperfBackend(const std::string &kperf_path, const std::string &kperfdata_path,
                 const std::string &libsystem_path = "");
    ~KperfBackend() override;

    kp_backend_t kind() const override { return KP_BACKEND_KPERF; }
    const char *name() const override { return "kperf"; }
    const CpuInfo &cpu() const override { return cpu_; }
    uint32_t fixed_counters() const override { return fixed_count_; }
    uint32_t configurable_counters() const override { return config_count_; }
    void check_access() const override;
    void populate(EventDatabase &db) override;
    bool resolve_dynamic(std::string_view name, Event &out) override;
    // ":u" on a configurable counter (what it counts anyway) or, for a generic event on a
    // fixed counter, on the event's configurable candidate; ":uk" on a fixed counter.
    // Everything else is refused with why (apple-kperf.md 2.6, 7.4).
    void apply_modifiers(Event &e) const override;
    std::unique_ptr<ThreadCounters> open(const std::vector<const Event *> &events) override;
    // kpc cannot attach counters to another process: every event counts system-wide,
    // except, for a spawned command, the fixed counters' events where libSystem keeps the
    // process's own totals (open_split_process). kpc never multiplexes: groups change nothing.
    std::unique_ptr<ProcessCounters> count_process(const ProcessTarget &target,
                                                   const std::vector<const Event *> &events,
                                                   const std::vector<int> &groups) override;
    void release() override;

    const kp_kperf_api_t &api() const { return frameworks_.api(); }
    // kp_sampler_kperf_info: what the frameworks and the kernel reported at creation.
    kp_kperf_info_t info() const;

private:
    struct DbDeleter {
        const kp_kperf_api_t *api;
        void operator()(kp_kpep_db_t *db) const { api->kpep_db_free(db); }
    };

    Event native_event(const EventFields &f) const;
    EventFields fields_of(const kp_kpep_event_t *ev) const;  // by_ptr_'s copy, or read now
    bool is_fixed(const EventFields &f) const;
    uint32_t effective_mask(const EventFields &f) const;
    KpcProgram program(const std::vector<const Event *> &events);
    // What to program for `e`: its own kpep event, or for a generic event whose event the
    // kernel refused, the next candidate. Throws KP_EUNAVAILABLE. Caller holds kpep_mu_.
    ProgramEvent program_event(const Event &e) const;

    // kpc stat: the events read from the command's own totals, with their specs.
    std::unique_ptr<ProcessCounters> open_split_process(const std::vector<const Event *> &events,
                                                        int pid);

    std::string libsystem_path_;
    Frameworks frameworks_;
    std::shared_ptr<KernelState> kernel_;
    std::unique_ptr<kp_kpep_db_t, DbDeleter> db_;
    DbView view_;
    Chip chip_;
    CpuInfo cpu_;
    uint32_t fixed_count_ = 0, config_count_ = 0;
    uint32_t fixed_bits_ = 0, config_bits_ = 0;
    // kpc_get_counter_count(CONFIGURABLE) before and after forcing all counters (M4 reports
    // 5, then 8); 0 when it could not be read. Reported by info(), for bug reports.
    uint32_t kernel_config_before_ = 0;
    mutable uint32_t kernel_config_after_ = 0;
    std::unordered_map<const kp_kpep_event_t *, size_t> by_ptr_;  // event -> view_.events index
    // Per generic event name, every candidate the database has, preferred first.
    std::unordered_map<std::string, std::vector<kp_kpep_event_t *>> generic_alternatives_;
    kp_kpep_event_t *fixed_anchor_ = nullptr;  // a fixed event kpep configs always carry
    std::unordered_set<const kp_kpep_event_t *> refused_;  // by the kernel (EPERM); kpep_mu_

    std::mutex kpep_mu_;  // kperfdata makes no thread-safety promise: one caller at a time
    mutable std::mutex access_mu_;
    mutable bool forced_ = false;  // this sampler holds a force_all_ctrs reference
    void note_forced_count() const;  // caller holds access_mu_
    mutable int access_status_ = KP_OK;
    mutable int access_os_code_ = 0;
    mutable std::string access_message_;
    std::atomic<bool> released_{false};
};

}  // namespace kpc::kperf
