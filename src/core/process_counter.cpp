#include "core/process_counter.hpp"

#include <utility>

#include "core/error.hpp"

namespace kpc {

namespace {

[[noreturn]] void released() {
    fail(KP_ESTATE, "the sampler was released (kp_sampler_release); create a new sampler to count again");
}

}  // namespace

ProcessCounter::ProcessCounter(std::shared_ptr<Session> session,
                               const std::vector<const Event *> &events,
                               const ProcessOptions &options)
    : session_(std::move(session)), options_(options) {
    events_.resize(events.size());
    for (size_t i = 0; i < events.size(); ++i) events_[i].event = events[i];
}

ProcessCounter::~ProcessCounter() {
    // Counters first, so nothing counts the child's killing; then ~HeldChild kills and
    // reaps a child that was not waited for.
    counters_.reset();
    child_.reset();
}

void ProcessCounter::check_can_count() {
    if (session_->released()) released();
    int next = 0;
    for (EventRecord &r : events_) {
        const Event *e = r.event;
        if (e->available) {
            r.attached = next++;
            continue;
        }
        if (!options_.partial)
            fail(KP_EUNAVAILABLE, "event '" + e->name + "' cannot be counted here: " +
                                      e->unavailable_reason, e->unavailable_os_code);
        r.status = KP_EUNAVAILABLE;  // partial: reported, never attached
        r.reason = e->unavailable_reason;
    }
}

void ProcessCounter::open(const ProcessTarget &target) {
    std::vector<const Event *> attach;
    std::vector<int> groups;
    for (size_t i = 0; i < events_.size(); ++i) {
        if (events_[i].attached < 0) continue;
        attach.push_back(events_[i].event);
        if (!options_.groups.empty()) groups.push_back(options_.groups[i]);
    }
    if (attach.empty()) {
        if (target.kind == ProcessTarget::Kind::spawned) return;  // partial: the command still runs
        fail(events_[0].status, "none of the events can be counted here; the first, '" +
                                    events_[0].event->name + "': " + events_[0].reason);
    }
    counters_ = session_->backend().count_process(target, attach, groups);
    caps_ = counters_->capabilities();
    if (options_.partial)
        counters_->require_some_event();
    else
        counters_->require_all_events();
}

void ProcessCounter::finish_setup() {
    for (EventRecord &r : events_) {
        if (!counters_)
            r.scope = KP_PROCESS_SCOPE_TREE;  // partial with nothing countable
        else if (r.attached < 0)
            r.scope = caps_.scope;
        else
            r.scope = counters_->event_scope(static_cast<size_t>(r.attached));
    }
    counting_.store(true, std::memory_order_release);
}

std::unique_ptr<ProcessCounter> ProcessCounter::spawn(std::shared_ptr<Session> session,
                                                      std::vector<const Event *> events,
                                                      const std::vector<std::string> &argv,
                                                      const ProcessOptions &options) {
    std::unique_ptr<ProcessCounter> p(new ProcessCounter(std::move(session), events, options));
    p->check_can_count();
    p->child_ = std::make_unique<HeldChild>(argv);
    p->pid_ = p->child_->pid();
    p->open({ProcessTarget::Kind::spawned, p->pid_});
    p->child_->exec();
    if (p->counters_) p->counters_->child_execed();
    p->finish_setup();
    return p;
}

std::unique_ptr<ProcessCounter> ProcessCounter::attach(std::shared_ptr<Session> session,
                                                       std::vector<const Event *> events, int pid,
                                                       const ProcessOptions &options) {
    std::unique_ptr<ProcessCounter> p(new ProcessCounter(std::move(session), events, options));
    p->check_can_count();
    p->pid_ = pid;
    p->open({pid == KP_PROCESS_SYSTEM_WIDE ? ProcessTarget::Kind::every_cpu
                                           : ProcessTarget::Kind::attached,
             pid});
    p->finish_setup();
    return p;
}

void ProcessCounter::cannot_pause() const {
    fail(KP_EUNSUPPORTED, std::string("the ") + session_->backend().name() +
                              " backend's process counters cover the process's whole life "
                              "and cannot be paused");
}

void ProcessCounter::start() {
    std::lock_guard<std::mutex> lock(mu_);
    if (session_->released()) released();
    if (counting()) return;
    if (counters_ && !caps_.can_pause) cannot_pause();
    if (counters_) counters_->start();
    counting_.store(true, std::memory_order_release);
}

void ProcessCounter::stop() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!counting()) return;
    if (counters_ && !caps_.can_pause) cannot_pause();
    counting_.store(false, std::memory_order_release);  // even if the backend fails
    if (counters_) counters_->stop();
}

void ProcessCounter::check_buffers(size_t count, const char *fn) const {
    if (count < events_.size())
        fail(KP_EBUFSIZE, std::string(fn) + ": the buffers hold " + std::to_string(count) +
                              " elements, fewer than the handle's " +
                              std::to_string(events_.size()) + " events (kp_process_event_count)");
    if (session_->released()) released();
}

void ProcessCounter::read(uint64_t *values, uint8_t *complete, size_t count, uint64_t *enabled_ns,
                          uint64_t *running_ns) {
    std::lock_guard<std::mutex> lock(mu_);
    check_buffers(count, "kp_process_read");
    if (counters_ && !caps_.reads_while_running && !exited_)
        fail(KP_ESTATE, std::string("the ") + session_->backend().name() +
                            " backend reads the process's totals once it has ended: call "
                            "kp_process_wait first");
    std::vector<ProcessCount> counts;
    if (counters_) counts = counters_->read();
    report(counts, values, complete, enabled_ns, running_ns);
}

void ProcessCounter::report(const std::vector<ProcessCount> &counts, uint64_t *values,
                            uint8_t *complete, uint64_t *enabled_ns, uint64_t *running_ns) {
    if (!options_.partial)
        for (const ProcessCount &c : counts)
            if (!c.counted) fail(c.status, c.error);
    for (size_t i = 0; i < events_.size(); ++i) {
        EventRecord &r = events_[i];
        const ProcessCount *c = r.attached < 0 ? nullptr : &counts.at(static_cast<size_t>(r.attached));
        if (c && c->counted) {
            r.status = KP_OK;
            r.reason.clear();
        } else if (c) {  // partial: reported per event
            r.status = c->status == KP_OK ? KP_EKERNEL : c->status;
            r.reason = c->error;
        }
        bool counted = c && c->counted;
        values[i] = counted ? c->value : 0;
        if (complete) complete[i] = counted && c->complete && c->enabled_ns == c->running_ns ? 1 : 0;
        if (enabled_ns) enabled_ns[i] = counted ? c->enabled_ns : 0;
        if (running_ns) running_ns[i] = counted ? c->running_ns : 0;
    }
}

size_t ProcessCounter::thread_count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return counters_ && caps_.per_thread ? counters_->thread_count() : 0;
}

void ProcessCounter::read_thread(size_t index, int &tid, uint64_t *values, uint8_t *complete,
                                 size_t count) {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t threads = counters_ && caps_.per_thread ? counters_->thread_count() : 0;
    if (index >= threads)
        fail(KP_EINVAL, "kp_process_read_thread: index " + std::to_string(index) +
                            " is out of range: the handle has " + std::to_string(threads) +
                            " per-thread counters (kp_process_thread_count)");
    check_buffers(count, "kp_process_read_thread");
    report(counters_->read_thread(index, tid), values, complete, nullptr, nullptr);
}

bool ProcessCounter::status(size_t index, int &code, const char *&reason) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (index >= events_.size()) return false;
    code = events_[index].status;
    reason = events_[index].reason.c_str();
    return true;
}

ProcessExit ProcessCounter::wait() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (pid_ == KP_PROCESS_SYSTEM_WIDE)
            fail(KP_ESTATE, "a system-wide handle (KP_PROCESS_SYSTEM_WIDE) counts no process of "
                            "its own: there is nothing to wait for; stop or free it instead");
        if (!child_)
            fail(KP_ESTATE, "process " + std::to_string(pid_) +
                                " was attached, not started by libkpc, so libkpc cannot wait "
                                "for it: wait for it where it was started");
        if (exited_) return exit_;
    }
    int err = child_->wait_exited();  // unlocked: others may read meanwhile
    std::lock_guard<std::mutex> lock(mu_);
    if (exited_) return exit_;  // another thread waited too and reaped it first
    if (err == 0 && counters_) counters_->child_exited();  // before reaping: the zombie still answers
    exit_ = child_->reap();
    exited_ = true;
    return exit_;
}

int ProcessCounter::scope(size_t index) const {
    std::lock_guard<std::mutex> lock(mu_);
    return index < events_.size() ? events_[index].scope : -1;
}

}  // namespace kpc
