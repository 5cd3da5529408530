// Where pmu_workload is: beside the test program, in the build tree and in the guest alike.
#pragma once

#include <unistd.h>

#include <string>

namespace kpc_pmu {

inline std::string workload_path() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "pmu_workload";
    std::string self(buf, static_cast<size_t>(n));
    return self.substr(0, self.rfind('/') + 1) + "pmu_workload";
}

}  // namespace kpc_pmu
