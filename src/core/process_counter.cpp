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

std::unique_ptr<ProcessCounters> Backend::count_system_wide(const std::vector<const Event *> &,
                                                            const std::vector<int> &) {
    fail(KP_EUNSUPPORTED, std::string("the ") + name() +
                              " backend cannot count every CPU (system-wide)" +
                              (kind() == KP_BACKEND_RECOUNT
                                   ? ": macOS gives an unprivileged process only per-process "
                                     "totals; run as root to use the kperf backend"
                                   : ""));
}

std::vector<ProcessCount> ProcessCounters::read_thread(size_t index, int &) {
    fail(KP_EINVAL, "thread index " + std::to_string(index) +
                        " is out of range: these counters have no per-thread counts");
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

void ProcessCounter::check_can_count() {
    if (session_->released()) released();
    status_.assign(events_.size(), KP_OK);
    reasons_.assign(events_.size(), std::string());
    attached_.clear();
    int next = 0;
    for (size_t i = 0; i < events_.size(); ++i) {
        const Event *e = events_[i];
        if (e->available) {
            attached_.push_back(next++);
            continue;
        }
        if (!partial_)
            fail(KP_EUNAVAILABLE, "event '" + e->name + "' cannot be counted here: " +
                                      e->unavailable_reason, e->unavailable_os_code);
        attached_.push_back(-1);  // partial: reported, never attached
        status_[i] = KP_EUNAVAILABLE;
        reasons_[i] = e->unavailable_reason;
    }
}

void ProcessCounter::finish_setup() {
    events_ = session_->counted(std::move(events_));
    for (size_t i = 0; i < events_.size(); ++i) {
        if (!counters_)
            scopes_.push_back(KP_PROCESS_SCOPE_TREE);  // partial with nothing countable
        else if (attached_[i] < 0)
            scopes_.push_back(scope_of(counters_->source()));
        else
            scopes_.push_back(scope_of(counters_->event_source(static_cast<size_t>(attached_[i]))));
    }
    counting_.store(true, std::memory_order_release);
}

void ProcessCounter::countable(const ProcessOptions &options, std::vector<const Event *> &events,
                               std::vector<int> &groups) const {
    for (size_t i = 0; i < events_.size(); ++i) {
        if (attached_[i] < 0) continue;
        events.push_back(events_[i]);
        groups.push_back(options.groups.empty() ? -1 : options.groups[i]);
    }
}

std::unique_ptr<ProcessCounter> ProcessCounter::spawn(std::shared_ptr<Session> session,
                                                      std::vector<const Event *> events,
                                                      const std::vector<std::string> &argv,
                                                      const ProcessOptions &options) {
    std::unique_ptr<ProcessCounter> p(new ProcessCounter(std::move(session), std::move(events)));
    p->partial_ = options.partial;
    p->check_can_count();
    std::vector<const Event *> attach;
    std::vector<int> groups;
    p->countable(options, attach, groups);
    p->child_ = std::make_unique<HeldChild>(argv);
    p->pid_ = p->child_->pid();
    Backend &backend = p->session_->backend();
    if (!attach.empty()) {  // empty only when partial: the command still runs
        p->counters_ = options.groups.empty() ? backend.open_process(attach, p->pid_)
                                              : backend.open_process_grouped(attach, groups, p->pid_);
        p->require_events();
    }
    p->child_->exec();
    if (p->counters_) p->counters_->child_execed();
    p->finish_setup();
    return p;
}

std::unique_ptr<ProcessCounter> ProcessCounter::attach(std::shared_ptr<Session> session,
                                                       std::vector<const Event *> events, int pid,
                                                       const ProcessOptions &options) {
    std::unique_ptr<ProcessCounter> p(new ProcessCounter(std::move(session), std::move(events)));
    p->partial_ = options.partial;
    p->check_can_count();
    p->pid_ = pid;
    std::vector<const Event *> attach;
    std::vector<int> groups;
    p->countable(options, attach, groups);
    Backend &backend = p->session_->backend();
    if (attach.empty())  // partial, and every event unavailable: nothing to attach
        fail(p->status_[0], "none of the events can be counted here; the first, '" +
                                p->events_[0]->name + "': " + p->reasons_[0]);
    if (pid == KP_PROCESS_SYSTEM_WIDE)
        p->counters_ = backend.count_system_wide(attach, groups);
    else
        p->counters_ = options.groups.empty() ? backend.attach_process(attach, pid)
                                              : backend.attach_process_grouped(attach, groups, pid);
    p->require_events();
    p->finish_setup();
    return p;
}

void ProcessCounter::require_events() const {
    if (partial_)
        counters_->require_some_event();
    else
        counters_->require_all_events();
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
    if (counters_ && !counters_->can_pause()) cannot_pause();
    if (counters_) counters_->start();
    counting_.store(true, std::memory_order_release);
}

void ProcessCounter::stop() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!counting()) return;
    if (counters_ && !counters_->can_pause()) cannot_pause();
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
    if (counters_ && !counters_->reads_while_running() && !exited_)
        fail(KP_ESTATE, std::string("the ") + session_->backend().name() +
                            " backend reads the process's totals (" + counters_->source() +
                            ") once it has ended: call kp_process_wait first");
    std::vector<ProcessCount> counts;
    if (counters_) counts = counters_->read();
    report(counts, values, complete, enabled_ns, running_ns);
}

void ProcessCounter::report(const std::vector<ProcessCount> &counts, uint64_t *values,
                            uint8_t *complete, uint64_t *enabled_ns, uint64_t *running_ns) {
    if (!partial_)
        for (const ProcessCount &c : counts)
            if (!c.counted) fail(c.status, c.error);
    for (size_t i = 0; i < events_.size(); ++i) {
        const ProcessCount *c = attached_[i] < 0 ? nullptr : &counts.at(static_cast<size_t>(attached_[i]));
        if (c && c->counted) {
            status_[i] = KP_OK;
            reasons_[i].clear();
        } else if (c) {  // partial: reported per event
            status_[i] = c->status == KP_OK ? KP_EKERNEL : c->status;
            reasons_[i] = c->error;
        }
        bool counted = c && c->counted;
        if (c && !c->source.empty()) scopes_[i] = scope_of(c->source);
        values[i] = counted ? c->value : 0;
        if (complete) complete[i] = counted && c->complete && c->enabled_ns == c->running_ns ? 1 : 0;
        if (enabled_ns) enabled_ns[i] = counted ? c->enabled_ns : 0;
        if (running_ns) running_ns[i] = counted ? c->running_ns : 0;
    }
}

size_t ProcessCounter::thread_count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return counters_ ? counters_->thread_count() : 0;
}

void ProcessCounter::read_thread(size_t index, int &tid, uint64_t *values, uint8_t *complete,
                                 size_t count) {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t threads = counters_ ? counters_->thread_count() : 0;
    if (index >= threads)
        fail(KP_EINVAL, "kp_process_read_thread: index " + std::to_string(index) +
                            " is out of range: the handle has " + std::to_string(threads) +
                            " per-thread counters (kp_process_thread_count)");
    check_buffers(count, "kp_process_read_thread");
    report(counters_->read_thread(index, tid), values, complete, nullptr, nullptr);
}

bool ProcessCounter::status(size_t index, int &code, const char *&reason) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (index >= status_.size()) return false;
    code = status_[index];
    reason = reasons_[index].c_str();
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
    return index < scopes_.size() ? scopes_[index] : -1;
}

}  // namespace kpc
