// Counters on a whole process, or on every CPU: one perf_event per (target, event). A
// target is a thread (its counters inherited, so the threads and processes it creates are
// counted too) or a CPU (system-wide). The kernel refuses PERF_FORMAT_GROUP with inherit,
// so each event has its own descriptors, read with TOTAL_TIME_ENABLED/RUNNING and summed
// over the targets.
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
    // perf_event group per target, led by the first of them that opened (kpc stat -e '{a,b}').
    static std::unique_ptr<ProcessEvents> for_child(const std::vector<const Event *> &events,
                                                    int pid, const std::vector<int> &groups = {});
    // A running process (kp_process_attach): every thread listed in /proc/<pid>/task now,
    // counting from the end of the call. Refused events are reported per event.
    static std::unique_ptr<ProcessEvents> attach(const std::vector<const Event *> &events,
                                                 int pid, const std::vector<int> &groups = {});
    // Every online CPU (kp_process_attach_ex with KP_PROCESS_SYSTEM_WIDE), from the end of
    // the call. Refused events are reported per event.
    static std::unique_ptr<ProcessEvents> system_wide(const std::vector<const Event *> &events,
                                                      const std::vector<int> &groups = {});
    ~ProcessEvents() override;
    ProcessEvents(const ProcessEvents &) = delete;
    ProcessEvents &operator=(const ProcessEvents &) = delete;

    // Live reads and pauses; per-thread rows unless the targets are CPUs.
    ProcessCapabilities capabilities() const override {
        const bool cpus = mode_ == Mode::system;
        return {true, true, !cpus, cpus ? KP_PROCESS_SCOPE_SYSTEM : KP_PROCESS_SCOPE_TREE};
    }
    std::vector<ProcessCount> read() override;
    size_t thread_count() const override { return mode_ == Mode::system ? 0 : targets_.size(); }
    std::vector<ProcessCount> read_thread(size_t index, int &tid) override;
    void require_all_events() const override;
    void require_some_event() const override;
    void child_execed() noexcept override;
    void stop() override;
    void start() override;

private:
    enum class Mode { child, attached, system };
    struct PerEvent {
        std::vector<int> fds;  // one per target; -1 where it is not counted
        // Per target: a group member there. Members follow their leader: the kernel does
        // not schedule a member enabled after its leader, so only leaders are switched.
        std::vector<bool> member;
        int status = KP_OK;    // why it could not be opened
        int os_code = 0;
        std::string error;  // the refusal, without the event's name
        std::string name;   // the event's, for the error that fails the whole set
    };
    ProcessEvents(size_t events, Mode mode, int pid, std::vector<int> targets);
    // Opens every (target, event); records refusals per event.
    void open_all(const std::vector<const Event *> &events, const std::vector<int> &groups);
    // Attached: forgets the threads that ended before any counter was opened on them.
    void drop_ended_threads();
    // The refusal of `e` on `target` as status + message, in the words of this mode.
    int diagnose(int err, const Event &e, int target, bool in_group, std::string *message) const;
    // The counts of targets [first, last) of every event, summed per event.
    std::vector<ProcessCount> read_targets(size_t first, size_t last) const;
    // ioctl(`request`) on every descriptor; throws the first failure after trying all.
    void for_every_fd(unsigned long request, const char *name);

    Mode mode_;
    int pid_;                   // the process (child, attached); -1 system-wide
    std::vector<int> targets_;  // thread ids, or CPU numbers (Mode::system)
    std::vector<PerEvent> events_;
};

}  // namespace kpc::perf
