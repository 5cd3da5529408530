#include "backends/apple/process_totals.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.hpp"

namespace kpc::apple {
namespace {

// What a monotonic total grew by; 0 rather than a wrapped value should a kernel's P/E
// split ever step back.
uint64_t growth(uint64_t now, uint64_t before) { return now > before ? now - before : 0; }

constexpr EventSpec kProcessCycles{"cycles", Quantity::cycles, Level::all, ""};
constexpr EventSpec kProcessInstructions{"instructions", Quantity::instructions, Level::all, ""};

}  // namespace

RusageProcessCounters::RusageProcessCounters(const LibSystem &lib, MachTimebase timebase,
                                             int flavor, int levels,
                                             std::vector<RusageField> fields, int pid)
    : lib_(lib), timebase_(timebase), flavor_(flavor), levels_(levels),
      fields_(std::move(fields)), pid_(pid), now_(fields_.size(), 0), base_(fields_.size(), 0),
      banked_(fields_.size(), 0) {}

void RusageProcessCounters::count_from_now() {
    int err = poll();
    if (err == 0 && gone_) err = ESRCH;
    if (err != 0) fail_poll(err);
    base_ = now_;
}

std::unique_ptr<RusageProcessCounters> RusageProcessCounters::totals(
    const LibSystem &lib, const std::vector<Quantity> &quantities, int pid) {
    std::vector<RusageField> fields;
    for (Quantity q : quantities) {
        if (q != Quantity::cycles && q != Quantity::instructions)
            fail(KP_ERROR, "proc_pid_rusage: RUSAGE_INFO_V4 has whole-process totals of cycles "
                           "and instructions only");
        RusageField f;
        f.spec = q == Quantity::cycles ? &kProcessCycles : &kProcessInstructions;
        fields.push_back(std::move(f));
    }
    // Neither the timebase nor the perf levels matter for these totals.
    return std::make_unique<RusageProcessCounters>(lib, MachTimebase{1, 1}, kRusageInfoV4, 1,
                                                   std::move(fields), pid);
}

void RusageProcessCounters::require_all_events() const {
    for (const RusageField &f : fields_)
        if (!f.spec) fail(f.status, f.error);
}

bool RusageProcessCounters::counts_any() const {
    for (const RusageField &f : fields_)
        if (f.spec) return true;
    return false;
}

int RusageProcessCounters::poll() noexcept {
    if (final_ || gone_) return 0;
    std::memset(buf_, 0, sizeof buf_);
    // Apple's rusage_info_t * is the address of the caller's record.
    if (lib_.api().proc_pid_rusage(pid_, flavor_, reinterpret_cast<void **>(buf_)) != 0) {
        const int err = errno;
        if (err != ESRCH) return errno_ = err;
        gone_ = true;  // reaped: the totals since the last poll are lost
    } else {
        const uint64_t started = word(kRiStartAbstime);
        if (start_abstime_ != 0 && started != 0 && started != start_abstime_) {
            gone_ = true;  // reaped, and its pid already names another process
        } else {
            start_abstime_ = started;
            for (size_t i = 0; i < fields_.size(); ++i)
                if (fields_[i].spec) now_[i] = value(*fields_[i].spec);
            final_ = word(kRiExitAbstime) != 0;  // a zombie: this is its exit snapshot
        }
    }
    if (gone_ && running_) missed_ = true;
    errno_ = 0;
    return 0;
}

void RusageProcessCounters::child_exited() noexcept { poll(); }

void RusageProcessCounters::stop() {
    if (!running_) return;
    const int err = poll();
    for (size_t i = 0; i < fields_.size(); ++i) banked_[i] += growth(now_[i], base_[i]);
    running_ = false;
    if (err != 0) {
        missed_ = true;  // banked as of the last good read
        fail_poll(err);
    }
}

void RusageProcessCounters::start() {
    if (running_) return;
    const int err = poll();
    if (err != 0) fail_poll(err);
    base_ = now_;
    running_ = true;
}

std::string RusageProcessCounters::error_text(int err) const {
    std::string text = "recount: proc_pid_rusage(" + std::to_string(pid_) + ") failed: " +
                       errno_text(err);
    if (err == EPERM)
        text += ": macOS lets only the process's own user, or root, read its totals "
                "(unless a sandbox forbids it); run kpc as that user, or as root with "
                "KPC_BACKEND=recount (for root the kperf backend, which counts system-wide, "
                "is the default)";
    return text;
}

void RusageProcessCounters::fail_poll(int err) const {
    if (err == ESRCH)
        fail(KP_EINVAL,
             "no process has pid " + std::to_string(pid_) +
                 ": it has exited, or the pid is wrong; give the pid of a running process",
             ESRCH);
    fail(err == EPERM ? KP_EPERM : KP_EKERNEL, error_text(err), err);
}

uint64_t RusageProcessCounters::word(size_t offset) const {
    uint64_t v;
    std::memcpy(&v, buf_ + offset, sizeof v);
    return v;
}

uint64_t RusageProcessCounters::value(const EventSpec &e) const {
    const bool one_level = levels_ < 2;  // P-only fields are 0 there; all work is level 0
    size_t total_at = 0, p_at = 0;
    switch (e.quantity) {
    case Quantity::instructions: total_at = kRiInstructions, p_at = kRiPInstructions; break;
    case Quantity::cycles: total_at = kRiCycles, p_at = kRiPCycles; break;
    case Quantity::user_time: total_at = kRiUserTime, p_at = kRiUserPtime; break;
    case Quantity::system_time: total_at = kRiSystemTime, p_at = kRiSystemPtime; break;
    case Quantity::cpu_time:
        return ticks_to_ns(word(kRiUserTime) + word(kRiSystemTime), timebase_);
    }
    uint64_t total = word(total_at);
    uint64_t v = total;
    if (e.level == Level::performance && !one_level) v = word(p_at);
    if (e.level == Level::efficiency) v = one_level ? 0 : total - word(p_at);
    return is_time(e.quantity) ? ticks_to_ns(v, timebase_) : v;
}

std::vector<ProcessCount> RusageProcessCounters::read() {
    if (running_) poll();
    std::vector<ProcessCount> out;
    for (size_t i = 0; i < fields_.size(); ++i) {
        const RusageField &f = fields_[i];
        ProcessCount c;
        if (!f.spec) {
            c.status = f.status;
            c.error = f.error;
        } else if (errno_ != 0) {
            c.status = errno_ == EPERM ? KP_EPERM : KP_EKERNEL;
            c.error = error_text(errno_);
        } else {
            c.counted = true;
            c.value = banked_[i] + (running_ ? growth(now_[i], base_[i]) : 0);
            c.complete = !missed_;
        }
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace kpc::apple
