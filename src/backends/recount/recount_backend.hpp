// The Apple backend that needs no root: the kernel's own per-thread cycle and instruction
// totals ("recount", macOS 13.0+; totals only on 12.x), read with thread_selfcounts, and a
// whole process's (spawned or attached) read with proc_pid_rusage. No PMU programming: only
// the events the kernel keeps (cycles, instructions, their P/E split, CPU times).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "backends/recount/libsystem.hpp"
#include "backends/recount/macos_version.hpp"
#include "backends/recount/process_counters.hpp"
#include "backends/recount/recount_events.hpp"
#include "core/backend.hpp"

namespace kpc::recount {

class RecountBackend final : public Backend {
public:
    // Loads the libSystem functions (from `libsystem_path`, or the process on macOS) and
    // reads the OS version and perf levels. A kernel that cannot count is not an error
    // here: check_access() reports it.
    explicit RecountBackend(const std::string &libsystem_path);

    kp_backend_t kind() const override { return KP_BACKEND_RECOUNT; }
    const char *name() const override { return "recount"; }
    const CpuInfo &cpu() const override { return cpu_; }
    uint32_t fixed_counters() const override { return 2; }  // cycles, instructions
    uint32_t configurable_counters() const override { return 0; }
    void check_access() const override;
    void populate(EventDatabase &db) override;
    std::unique_ptr<ThreadCounters> open(const std::vector<const Event *> &events) override;
    // A process's own totals (proc_pid_rusage): a spawned command's from its creation, an
    // attached one's from now. Not every CPU: the default refuses it, saying why.
    std::unique_ptr<ProcessCounters> count_process(const ProcessTarget &target,
                                                   const std::vector<const Event *> &events,
                                                   const std::vector<int> &groups) override;
    void release() override { released_.store(true, std::memory_order_release); }
    std::string unknown_event_hint() const override;
    // ":uk" on instructions and cycles (the kernel's totals are of both modes); anything
    // else is refused with why.
    void apply_modifiers(Event &e) const override;

private:
    void probe_counting();
    // Why `e` cannot be counted on this OS and machine; "" when it can.
    std::string unavailable_reason(const EventSpec &e) const;
    Event make_event(const EventSpec &e, const char *generic_description) const;
    // The process's totals (proc_pid_rusage) for `events`; per-event failures in the fields.
    std::unique_ptr<RusageProcessCounters> open_rusage(const std::vector<const Event *> &events,
                                                       int pid);

    std::unique_ptr<LibSystem> lib_;
    MacosVersion version_;
    int levels_ = 1;                // hw.nperflevels; 1 when unknown
    int precise_time_ = -1;         // kern.precise_user_kernel_time; -1 unknown
    bool have_timebase_ = false;
    MachTimebase timebase_{1, 1};
    CpuInfo cpu_;
    // What thread_selfcounts said at creation; the kernel does not change its mind.
    int access_status_ = KP_OK;
    int access_errno_ = 0;
    std::string access_message_;
    bool kernel_counts_ = true;  // false: the kernel keeps no cycle/instruction counts
    std::atomic<bool> released_{false};
};

}  // namespace kpc::recount
