#include "backends/recount/process_counters.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.hpp"

namespace kpc::recount {

RusageProcessCounters::RusageProcessCounters(const LibSystem &lib, MachTimebase timebase,
                                             int flavor, int levels,
                                             std::vector<RusageField> fields, int pid)
    : lib_(lib), timebase_(timebase), flavor_(flavor), levels_(levels),
      fields_(std::move(fields)), pid_(pid) {}

std::unique_ptr<RusageProcessCounters> RusageProcessCounters::totals(
    const LibSystem &lib, const std::vector<const EventSpec *> &specs, int pid) {
    std::vector<RusageField> fields;
    for (const EventSpec *spec : specs) {
        if (spec->level != Level::all || is_time(spec->quantity))
            fail(KP_ERROR, std::string("recount: ") + spec->name +
                               " is not a whole-process total of RUSAGE_INFO_V4");
        RusageField f;
        f.spec = spec;
        fields.push_back(std::move(f));
    }
    // Neither the timebase nor the perf levels matter for these totals.
    return std::make_unique<RusageProcessCounters>(lib, MachTimebase{1, 1}, kRusageInfoV4, 1,
                                                   std::move(fields), pid);
}

void RusageProcessCounters::child_exited() noexcept {
    std::memset(buf_, 0, sizeof buf_);
    // Apple's rusage_info_t * is the address of the caller's record.
    int rc = lib_.api().proc_pid_rusage(pid_, flavor_, reinterpret_cast<void **>(buf_));
    errno_ = rc == 0 ? 0 : errno;
    read_ = true;
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
    std::vector<ProcessCount> out;
    for (const RusageField &f : fields_) {
        ProcessCount c;
        if (!f.spec) {
            c.status = f.status;
            c.error = f.error;
        } else if (!read_) {
            c.status = KP_ERROR;
            c.error = "recount: the command's usage was not read before it was reaped";
        } else if (errno_ != 0) {
            c.status = errno_ == EPERM ? KP_EPERM : KP_EKERNEL;
            c.error = "recount: proc_pid_rusage(" + std::to_string(pid_) + ") failed: " +
                      errno_text(errno_) +
                      (errno_ == EPERM ? " (the command runs as another user; run kpc as root)" : "");
        } else {
            c.counted = true;
            c.value = value(*f.spec);
        }
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace kpc::recount
