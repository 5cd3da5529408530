#include "core/process_counter.hpp"

#include <utility>

#include "core/error.hpp"

namespace kpc {

// Backend's default: a backend that overrides nothing cannot attach to a running process.
std::unique_ptr<ProcessCounters> Backend::attach_process(const std::vector<const Event *> &, int) {
    fail(KP_EUNSUPPORTED, std::string("the ") + name() +
                              " backend cannot count a process that is already running; "
                              "kp_process_spawn counts a command it starts");
}

namespace {

// What a count covers, from where the backend says it comes from (ProcessCounters::source).
// A source this does not know is taken not to follow child processes: the narrower claim.
kp_process_scope_t scope_of(const std::string &source) {
    if (source == "system") return KP_PROCESS_SCOPE_SYSTEM;
    if (source == "process") return KP_PROCESS_SCOPE_TREE;
    return KP_PROCESS_SCOPE_PROCESS;
}

[[noreturn]] void released() {
    fail(KP_ESTATE, "the sampler was released (kp_sampler_release); create a new sampler to count again");
}

}  // namespace

ProcessCounter::ProcessCounter(std::shared_ptr<Session> session, std::vector<const Event *> events)
    : session_(std::move(session)), events_(std::move(events)) {}

ProcessCounter::~ProcessCounter() {
    // Counters first, so nothing counts the child's killing; then ~HeldChild kills and
    // reaps a child that was not waited for.
    counters_.reset();
    child_.reset();
}

void ProcessCounter::check_can_count() const {
    if (session_->released()) released();
    for (const Event *e : events_)
        if (!e->available)
            fail(KP_EUNAVAILABLE, "event '" + e->name + "' cannot be counted here: " +
                                      e->unavailable_reason, e->unavailable_os_code);
}

void ProcessCounter::finish_setup() {
    for (size_t i = 0; i < events_.size(); ++i)
        scopes_.push_back(scope_of(counters_->event_source(i)));
    counting_.store(true, std::memory_order_release);
}

std::unique_ptr<ProcessCounter> ProcessCounter::spawn(std::shared_ptr<Session> session,
                                                      std::vector<const Event *> events,
                                                      const std::vector<std::string> &argv) {
    std::unique_ptr<ProcessCounter> p(new ProcessCounter(std::move(session), std::move(events)));
    p->check_can_count();
    p->child_ = std::make_unique<HeldChild>(argv);
    p->pid_ = p->child_->pid();
    p->counters_ = p->session_->backend().open_process(p->events_, p->pid_);
    p->counters_->require_all_events();
    p->child_->exec();
    p->counters_->child_execed();
    p->finish_setup();
    return p;
}

std::unique_ptr<ProcessCounter> ProcessCounter::attach(std::shared_ptr<Session> session,
                                                       std::vector<const Event *> events,
                                                       int pid) {
    std::unique_ptr<ProcessCounter> p(new ProcessCounter(std::move(session), std::move(events)));
    p->check_can_count();
    p->pid_ = pid;
    p->counters_ = p->session_->backend().attach_process(p->events_, pid);
    p->finish_setup();
    return p;
}

void ProcessCounter::cannot_pause() const {
    fail(KP_EUNSUPPORTED, std::string("the ") + session_->backend().name() +
                              " backend reads the process's own totals (" + counters_->source() +
                              "), which cover its whole life and cannot be paused");
}

void ProcessCounter::start() {
    std::lock_guard<std::mutex> lock(mu_);
    if (session_->released()) released();
    if (counting()) return;
    if (!counters_->can_pause()) cannot_pause();
    counters_->start();
    counting_.store(true, std::memory_order_release);
}

void ProcessCounter::stop() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!counting()) return;
    if (!counters_->can_pause()) cannot_pause();
    counting_.store(false, std::memory_order_release);  // even if the backend fails
    counters_->stop();
}

void ProcessCounter::read(uint64_t *values, uint8_t *complete, size_t count, uint64_t *enabled_ns,
                          uint64_t *running_ns) {
    std::lock_guard<std::mutex> lock(mu_);
    if (count < events_.size())
        fail(KP_EBUFSIZE, "kp_process_read: the buffers hold " + std::to_string(count) +
                              " elements, fewer than the handle's " +
                              std::to_string(events_.size()) + " events (kp_process_event_count)");
    if (session_->released()) released();
    if (!counters_->reads_while_running() && !exited_)
        fail(KP_ESTATE, std::string("the ") + session_->backend().name() +
                            " backend reads the process's totals (" + counters_->source() +
                            ") once it has ended: call kp_process_wait first");
    std::vector<ProcessCount> counts = counters_->read();
    for (const ProcessCount &c : counts)
        if (!c.counted) fail(c.status, c.error);
    for (size_t i = 0; i < events_.size(); ++i) {
        if (!counts[i].source.empty()) scopes_[i] = scope_of(counts[i].source);
        values[i] = counts[i].value;
        if (complete) complete[i] = counts[i].enabled_ns == counts[i].running_ns ? 1 : 0;
        if (enabled_ns) enabled_ns[i] = counts[i].enabled_ns;
        if (running_ns) running_ns[i] = counts[i].running_ns;
    }
}

ProcessExit ProcessCounter::wait() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (!child_)
            fail(KP_ESTATE, "process " + std::to_string(pid_) +
                                " was attached, not started by libkpc, so libkpc cannot wait "
                                "for it: wait for it where it was started");
        if (exited_) return exit_;
    }
    int err = child_->wait_exited();  // unlocked: others may read meanwhile
    std::lock_guard<std::mutex> lock(mu_);
    if (exited_) return exit_;  // another thread waited too and reaped it first
    if (err == 0) counters_->child_exited();  // before reaping: the zombie still answers
    exit_ = child_->reap();
    exited_ = true;
    return exit_;
}

int ProcessCounter::scope(size_t index) const {
    std::lock_guard<std::mutex> lock(mu_);
    return index < scopes_.size() ? scopes_[index] : -1;
}

}  // namespace kpc
