// kpc stat on the recount backend: the child's own totals from proc_pid_rusage, read once
// it has exited and before it is reaped (a zombie still answers, with its exit snapshot).
// Covers every thread the process ran, dead ones included; not the processes it started.
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
    // `lib` outlives this object (the backend owns it). `levels`: hw.nperflevels.
    RusageProcessCounters(const LibSystem &lib, MachTimebase timebase, int flavor, int levels,
                          std::vector<RusageField> fields, int pid);
    // Only whole-process cycles and instructions (no P/E split, no times), for another
    // backend's kpc stat: RUSAGE_INFO_V4, which every macOS since 10.13 answers.
    // `specs` are recount events of those quantities; `lib` outlives the result.
    static std::unique_ptr<RusageProcessCounters> totals(const LibSystem &lib,
                                                         const std::vector<const EventSpec *> &specs,
                                                         int pid);
    void child_exited() noexcept override;
    std::vector<ProcessCount> read() override;
    const char *source() const override { return "proc_pid_rusage"; }

private:
    uint64_t word(size_t offset) const;
    uint64_t value(const EventSpec &e) const;

    const LibSystem &lib_;
    MachTimebase timebase_;
    int flavor_;
    int levels_;
    std::vector<RusageField> fields_;
    int pid_;
    bool read_ = false;
    int errno_ = 0;  // of a failed proc_pid_rusage
    alignas(8) unsigned char buf_[kRusageV6Size] = {};
};

}  // namespace kpc::recount
