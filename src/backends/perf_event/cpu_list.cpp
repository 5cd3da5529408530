#include "backends/perf_event/cpu_list.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kpc::perf {
namespace {

bool read_line(const std::string &path, std::string &out) {
    std::ifstream f(path);
    return static_cast<bool>(std::getline(f, out));
}

// The PMU type an attr refers to, or -1 for the kernel's generic types with no PMU named:
// a dynamic type (e.g. cpu_core's), or a hardware/cache event whose config carries an
// extended PMU type in its upper 32 bits (hybrid CPUs, Linux 5.16+).
long pmu_type_of(const perf_event_attr &attr) {
    if (attr.type >= PERF_TYPE_MAX) return static_cast<long>(attr.type);
    if ((attr.type == PERF_TYPE_HARDWARE || attr.type == PERF_TYPE_HW_CACHE) && (attr.config >> 32) != 0)
        return static_cast<long>(attr.config >> 32);
    return -1;
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string &text) {
    std::vector<int> cpus;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
        while (!part.empty() && (part.back() == '\n' || part.back() == ' ')) part.pop_back();
        if (part.empty()) continue;
        char *end = nullptr;
        long first = std::strtol(part.c_str(), &end, 10);
        long last = first;
        if (end == part.c_str() || first < 0) return {};
        if (*end == '-') {
            const char *second = end + 1;
            last = std::strtol(second, &end, 10);
            if (end == second || last < first) return {};
        }
        if (*end != '\0' || last > 65535) return {};
        for (long c = first; c <= last; ++c) cpus.push_back(static_cast<int>(c));
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

std::vector<int> online_cpus(const std::string &sysfs_root) {
    std::string line;
    if (read_line(sysfs_root + "/devices/system/cpu/online", line)) {
        std::vector<int> cpus = parse_cpu_list(line);
        if (!cpus.empty()) return cpus;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    std::vector<int> cpus;
    for (long c = 0; c < std::max(n, 1L); ++c) cpus.push_back(static_cast<int>(c));
    return cpus;
}

std::vector<int> cpus_for_event(const perf_event_attr &attr, const std::vector<int> &online,
                                const std::string &sysfs_root) {
    const long type = pmu_type_of(attr);
    if (type < 0) return online;
    const std::string devices = sysfs_root + "/bus/event_source/devices";
    DIR *d = opendir(devices.c_str());
    if (!d) return online;
    std::vector<int> covered;
    bool found = false;
    while (dirent *ent = readdir(d)) {
        if (ent->d_name[0] == '.') continue;
        const std::string pmu = devices + "/" + ent->d_name;
        std::string line;
        if (!read_line(pmu + "/type", line) || std::atol(line.c_str()) != type) continue;
        if (read_line(pmu + "/cpus", line) || read_line(pmu + "/cpumask", line)) {
            covered = parse_cpu_list(line);
            found = !covered.empty();
        }
        break;
    }
    closedir(d);
    if (!found) return online;
    std::vector<int> both;
    std::set_intersection(online.begin(), online.end(), covered.begin(), covered.end(),
                          std::back_inserter(both));
    return both;
}

}  // namespace kpc::perf
