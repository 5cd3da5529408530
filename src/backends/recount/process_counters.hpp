// A process's own totals on the recount backend, from proc_pid_rusage: every thread the
// process ran, dead ones included; not the processes it started. The kernel answers for a
// running process (live totals) and for a zombie until it is reaped (its exit snapshot).
//  - spawned (kp_process_spawn, kpc stat): counted from the process's creation, so the
//    baseline is 0; child_exited() takes the exit snapshot between waitid(WNOWAIT) and
//    the reap, and later reads return it.
//  - attached (kp_process_attach): a read is the totals now less those at attach.
// stop() banks what was counted so far; start() takes a new baseline. An attached process
// that vanishes (reaped by its parent, so ESRCH) keeps the totals last read, flagged
// incomplete: its work since that read is lost.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/recount/libsystem.hpp"
#include "backends/recount/recount_events.hpp"
#include "core/backend.hpp"

namespace kpc::recount {

// How to read one event from a rusage_info record.
struct RusageField {
    const EventSpec *spec = nullptr;  // null: not counted, `status`/`error` say why
    int status = KP_OK;
    std::string error;
};

class RusageProcessCounters final : public ProcessCounters {
public:
    // `lib` outlives this object (the backend owns it). `levels`: hw.nperflevels. Counts
    // from the process's creation (a command libkpc spawns) unless count_from_now().
    RusageProcessCounters(const LibSystem &lib, MachTimebase timebase, int flavor, int levels,
                          std::vector<RusageField> fields, int pid);
    // Reads the baseline, so that counting starts now (kp_process_attach). Throws KP_EINVAL
    // (no such process; os code ESRCH), KP_EPERM (another user's process), KP_EKERNEL.
    void count_from_now();
    // Only whole-process cycles and instructions (no P/E split, no times), for another
    // backend's kpc stat: RUSAGE_INFO_V4, which every macOS since 10.13 answers.
    // `specs` are recount events of those quantities; `lib` outlives the result.
    static std::unique_ptr<RusageProcessCounters> totals(const LibSystem &lib,
                                                         const std::vector<const EventSpec *> &specs,
                                                         int pid);
    void require_all_events() const override;
    // Whether any event can be counted (the others report why not when read).
    bool counts_any() const;
    void child_exited() noexcept override;
    std::vector<ProcessCount> read() override;
    // The process's own totals: live, pausable (banked), not its children's.
    ProcessCapabilities capabilities() const override {
        return {true, true, false, KP_PROCESS_SCOPE_PROCESS};
    }
    void stop() override;
    void start() override;

private:
    // Refreshes now_ from the kernel unless the totals can no longer change. Returns 0 or
    // the errno of a failure other than the process having gone (which sets gone_).
    int poll() noexcept;
    [[noreturn]] void fail_poll(int err) const;
    std::string error_text(int err) const;
    uint64_t word(size_t offset) const;
    uint64_t value(const EventSpec &e) const;

    const LibSystem &lib_;
    MachTimebase timebase_;
    int flavor_;
    int levels_;
    std::vector<RusageField> fields_;
    int pid_;
    // Per field: the totals at the last successful poll, at the last (re)start, and what
    // the spans before the last stop counted.
    std::vector<uint64_t> now_, base_, banked_;
    uint64_t start_abstime_ = 0;  // the process's creation time, to spot a reused pid
    bool running_ = true;
    bool final_ = false;   // now_ is the exit snapshot: the totals cannot change
    bool gone_ = false;    // the process vanished without our seeing its exit snapshot
    bool missed_ = false;  // it vanished while counted: the totals lack its last work
    int errno_ = 0;        // of the last failed proc_pid_rusage, 0 after a success
    alignas(8) unsigned char buf_[kRusageV6Size] = {};
};

}  // namespace kpc::recount
