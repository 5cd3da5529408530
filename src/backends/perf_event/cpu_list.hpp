// Which CPUs a system-wide count opens a counter on: the online CPUs, narrowed to the CPUs
// an event's PMU covers (a hybrid core type's `cpus`, an uncore PMU's `cpumask`), as the
// kernel refuses an event on a CPU its PMU does not serve.
#pragma once

#include <linux/perf_event.h>

#include <string>
#include <vector>

namespace kpc::perf {

// "0-3,6,8-9" -> {0,1,2,3,6,8,9}. Empty on a malformed list (the caller then falls back).
std::vector<int> parse_cpu_list(const std::string &text);

// The online CPUs (`sysfs_root`/devices/system/cpu/online), or 0..nprocs-1 if unreadable.
std::vector<int> online_cpus(const std::string &sysfs_root = "/sys");

// The CPUs among `online` that an event with this attr may count on: those in its PMU's
// `cpus` or `cpumask` file when the attr names a PMU that has one, else all of `online`.
std::vector<int> cpus_for_event(const perf_event_attr &attr, const std::vector<int> &online,
                                const std::string &sysfs_root = "/sys");

}  // namespace kpc::perf
