// proc_pid_rusage (apple-recount.md §3): RUSAGE_INFO_V0..V6 for any process the caller may
// inspect, zombies included until they are reaped.
#include <cerrno>
#include <map>
#include <mutex>
#include <utility>

#include "linux_cpu.h"
#include "model.h"

namespace rcsim {
namespace {

// Linux keeps no exit time, so a zombie's ri_proc_exit_abstime is the first time the
// simulator sees it dead, remembered per (pid, start time) so every read returns the same
// snapshot, as macOS's exit-time copy does.
std::mutex g_zombie_mu;
std::map<std::pair<pid_t, uint64_t>, uint64_t> g_exit_ns;

uint64_t exit_ns(const ProcessInfo &p) {
    std::lock_guard<std::mutex> lock(g_zombie_mu);
    auto it = g_exit_ns.emplace(std::make_pair(p.pid, p.start_ns), now_ns()).first;
    return it->second;
}

int max_flavor(const Config &c) {
    if (at_least(c, 13, 0)) return 6;
    if (at_least(c, 11, 0)) return 5;
    return 4;
}

}  // namespace

void forget_zombies() {
    std::lock_guard<std::mutex> lock(g_zombie_mu);
    g_exit_ns.clear();
}

}  // namespace rcsim

using namespace rcsim;

// Apple's third parameter is `rusage_info_t *buffer`, in practice the address of the struct.
RCSIM_EXPORT int proc_pid_rusage(int pid, int flavor, void **buffer) {
    const Config c = config();
    ProcessInfo proc;
    if (!find_process(pid, &proc)) return fail(ESRCH);
    if (!may_inspect(c, proc.own, proc.euid)) return fail(EPERM);
    if (flavor < 0 || flavor > max_flavor(c)) return fail(EINVAL);
    CpuTime cpu;
    if (!process_cpu(proc, &cpu)) return fail(ESRCH);  // reaped meanwhile

    rusage_info_v6 ri{};
    const usage_words total = total_usage(c, cpu);
    ri.ri_user_time = total.user_time_mach;
    ri.ri_system_time = total.system_time_mach;
    ri.ri_pageins = proc.majflt;
    ri.ri_resident_size = proc.rss_bytes;
    ri.ri_phys_footprint = proc.zombie ? 0 : proc.rss_bytes;
    ri.ri_proc_start_abstime = ns_to_ticks(c, proc.start_ns);
    if (proc.zombie) ri.ri_proc_exit_abstime = ns_to_ticks(c, exit_ns(proc));
    ri.ri_child_user_time = ns_to_ticks(c, proc.cutime_ns);
    ri.ri_child_system_time = ns_to_ticks(c, proc.cstime_ns);
    ri.ri_child_pageins = proc.cmajflt;
    ri.ri_instructions = total.instructions;  // 0 in a VM (total_usage)
    ri.ri_cycles = total.cycles;
    if (!c.vm && c.perf_levels == 2) {  // P-only fields need CONFIG_PERVASIVE_CPI and two kinds
        usage_words p, e;
        split_usage(c, total, &p, &e);
        ri.ri_user_ptime = p.user_time_mach;
        ri.ri_system_ptime = p.system_time_mach;
        ri.ri_pinstructions = p.instructions;
        ri.ri_pcycles = p.cycles;
    }
    return copy_out(buffer, &ri, kRusageSizes[flavor]) ? 0 : fail(EFAULT);
}
