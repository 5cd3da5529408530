// Counters on a whole process: one inherited perf_event per (thread, event), so the threads
// and processes a counted thread creates are counted too. The kernel refuses
// PERF_FORMAT_GROUP with inherit, so each event has its own descriptors, read with
// TOTAL_TIME_ENABLED/RUNNING and summed over the threads.
#pragma once

#include <string>
#include <vector>

#include "core/backend.hpp"

namespace kpc::perf {

class ProcessEvents final : public ProcessCounters {
public:
    // A child held before exec (kpc stat, kp_process_spawn): counting starts at its exec.
    // Events the kernel refuses are reported per event (read(), require_all_events()).
    // `groups` (empty, or one entry per event): events with the same number >= 0 form one
    // perf_event group, led by the first of them that opened (kpc stat -e '{a,b}').
    static std::unique_ptr<ProcessEvents> for_child(const std::vector<const Event *> &events,
                                                    int pid, const std::vector<int> &groups = {});
    // A running process (kp_process_attach): every thread listed in /proc/<pid>/task now,
    // counting from the end of the call. Throws on any failure; nothing stays open.
    static std::unique_ptr<ProcessEvents> attach(const std::vector<const Event *> &events,
                                                 int pid);
    ~ProcessEvents() override;
    ProcessEvents(const ProcessEvents &) = delete;
    ProcessEvents &operator=(const ProcessEvents &) = delete;

    std::vector<ProcessCount> read() override;
    void require_all_events() const override;
    void child_execed() noexcept override;
    bool reads_while_running() const override { return true; }
    bool can_pause() const override { return true; }
    void stop() override;
    void start() override;

private:
    struct PerEvent {
        std::vector<int> fds;  // one per counted thread
        int status = KP_OK;    // why it could not be opened
        int os_code = 0;
        std::string error;
    };
    ProcessEvents(const std::vector<const Event *> &events, int pid);
    // ioctl(`request`) on every descriptor; throws the first failure after trying all.
    void for_every_fd(unsigned long request, const char *name);

    int pid_;
    std::vector<PerEvent> events_;
};

}  // namespace kpc::perf
