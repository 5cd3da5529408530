#include "backends/perf_event/counter_probe.hpp"

#include <linux/perf_event.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <vector>

#include "backends/perf_event/event_group.hpp"
#include "core/error.hpp"

namespace kpc::perf {
namespace {

// Architectural ARMv8 PMU events, implemented by every PMUv3. Placement, as Linux 6.1's
// armv8pmu_get_event_idx does it (and validate_group asks of a group): CPU_CYCLES takes
// the cycle counter first, then event counters; every other event, event counters only.
// Checked in the emulated-PMU guest (1 + 6 on QEMU's 7 counters). Later kernels also put
// INST_RETIRED on FEAT_PMUv3_ICNTR's instruction counter where the CPU has one; there this
// probe would count that fixed counter as configurable.
constexpr uint64_t kInstRetired = 0x08;  // any event counter, never the cycle counter
constexpr uint64_t kCpuCycles = 0x11;    // the cycle counter first, then event counters
constexpr int kMaxProbe = 40;            // more than any Arm PMU has (31 + 1)

// The largest group of `config` events the kernel accepts, or -errno when it accepts none.
// Members are opened enabled: the Arm driver's group check skips disabled ones.
int largest_group(uint32_t type, uint64_t config) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    std::vector<int> fds;
    int result = 0;
    for (;;) {
        int fd = open_event(a, 0, fds.empty() ? -1 : fds[0], PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            result = fds.empty() ? -err : (err == EINVAL ? static_cast<int>(fds.size()) : -err);
            break;
        }
        fds.push_back(fd);
        if (static_cast<int>(fds.size()) > kMaxProbe) {
            result = -ERANGE;
            break;
        }
    }
    for (int fd : fds) close(fd);
    return result;
}

}  // namespace

CounterCount probe_arm_counters(const std::string &pmu) {
    CounterCount c;
    uint32_t type = 0;
    std::ifstream f("/sys/bus/event_source/devices/" + pmu + "/type");
    if (!(f >> type)) {
        c.unknown = "cannot read /sys/bus/event_source/devices/" + pmu + "/type";
        return c;
    }
    int events = largest_group(type, kInstRetired);
    int all = events > 0 ? largest_group(type, kCpuCycles) : events;
    if (events <= 0 || all < events) {
        int err = events <= 0 ? -events : (all < 0 ? -all : 0);
        c.unknown = "the kernel does not list how many counters the " + pmu +
                    " PMU has, and probing it with perf_event groups failed" +
                    (err ? " " + errno_text(err) : std::string()) +
                    (err == EACCES || err == EPERM
                         ? ": lower kernel.perf_event_paranoid (2 or less) or run as root"
                         : "");
        return c;
    }
    c.configurable = static_cast<uint32_t>(events);
    c.fixed = static_cast<uint32_t>(all - events);
    return c;
}

}  // namespace kpc::perf
