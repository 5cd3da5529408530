// The object behind kp_process_t: a set of events counted for a whole process, through the
// backend's ProcessCounters, plus the child itself when libkpc started it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/process_launch.hpp"
#include "core/session.hpp"
#include "kpc/process.h"

namespace kpc {

// kp_process_spawn_ex's and kp_process_attach_ex's options, checked by the C shim.
struct ProcessOptions {
    // Events that cannot be counted are reported per event (status()) instead of failing.
    bool partial = false;
    std::vector<int> groups;  // per event: its group number, or -1; empty: no groups
};

class ProcessCounter {
public:
    // kp_process_spawn: start `argv` held before its exec, attach, let it exec. Returns
    // once counting has begun in it. Throws kpc::Error; no child is left behind.
    static std::unique_ptr<ProcessCounter> spawn(std::shared_ptr<Session> session,
                                                 std::vector<const Event *> events,
                                                 const std::vector<std::string> &argv,
                                                 const ProcessOptions &options = {});
    // kp_process_attach: count running process `pid` (> 0) from now on, or every CPU for
    // KP_PROCESS_SYSTEM_WIDE. Throws kpc::Error.
    static std::unique_ptr<ProcessCounter> attach(std::shared_ptr<Session> session,
                                                  std::vector<const Event *> events, int pid,
                                                  const ProcessOptions &options = {});
    // Closes the counters; a spawned child not yet waited for is killed and reaped.
    ~ProcessCounter();
    ProcessCounter(const ProcessCounter &) = delete;
    ProcessCounter &operator=(const ProcessCounter &) = delete;

    void start();
    void stop();
    bool counting() const noexcept { return counting_.load(std::memory_order_acquire); }
    // Totals into `values` (and the optional per-event buffers), `count` elements each.
    // Throws kpc::Error (KP_EBUFSIZE, KP_ESTATE, the backend's per-event status).
    void read(uint64_t *values, uint8_t *complete, size_t count, uint64_t *enabled_ns,
              uint64_t *running_ns);
    // kp_process_thread_count / kp_process_read_thread: per-thread totals, as read().
    size_t thread_count() const;
    void read_thread(size_t index, int &tid, uint64_t *values, uint8_t *complete, size_t count);
    // Waits for a spawned child without holding the handle's lock, then reaps it once.
    ProcessExit wait();

    int pid() const noexcept { return pid_; }
    size_t event_count() const noexcept { return events_.size(); }
    // Event `index`, or nullptr when out of range.
    const Event *event(size_t index) const noexcept {
        return index < events_.size() ? events_[index].event : nullptr;
    }
    // kp_process_scope_t of event `index`, or -1 when out of range.
    int scope(size_t index) const;
    // Event `index`'s status as of creation or the last read (KP_OK: counted), and why
    // not; false when out of range. `reason` stays valid until the next read.
    bool status(size_t index, int &code, const char *&reason) const;

private:
    // One per event of the handle. `event` and `attached` are fixed at creation; the rest
    // a read may update (mu_).
    struct EventRecord {
        const Event *event = nullptr;
        int attached = -1;  // its index among the events given to the backend; -1: not
                            // countable here (partial sets only)
        kp_process_scope_t scope = KP_PROCESS_SCOPE_TREE;
        int status = KP_OK;  // KP_OK: counted; else why not
        std::string reason;  // "" when counted
    };

    ProcessCounter(std::shared_ptr<Session> session, const std::vector<const Event *> &events,
                   const ProcessOptions &options);
    // Refuses a released session and events this machine cannot count, as kp_thread_new
    // does; a partial set keeps them, reported per event.
    void check_can_count();
    // Attaches the countable events to `target` through the backend, then checks them.
    void open(const ProcessTarget &target);
    // Per-event results of a read into the caller's buffers; updates the records.
    void report(const std::vector<ProcessCount> &counts, uint64_t *values, uint8_t *complete,
                uint64_t *enabled_ns, uint64_t *running_ns);
    void check_buffers(size_t count, const char *fn) const;
    void finish_setup();  // scopes, counting state
    [[noreturn]] void cannot_pause() const;

    std::shared_ptr<Session> session_;
    std::vector<EventRecord> events_;
    ProcessOptions options_;
    std::unique_ptr<HeldChild> child_;  // spawned only
    std::unique_ptr<ProcessCounters> counters_;
    ProcessCapabilities caps_;  // counters_'s, fixed at creation
    int pid_ = -1;
    mutable std::mutex mu_;
    std::atomic<bool> counting_{false};
    bool exited_ = false;  // the spawned child was waited for; exit_ holds the result
    ProcessExit exit_;
};

}  // namespace kpc
