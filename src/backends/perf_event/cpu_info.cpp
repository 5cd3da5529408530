#include "backends/perf_event/cpu_info.hpp"

#include <dirent.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <fstream>
#include <string>

namespace kpc::perf {
namespace {

std::string cpuinfo_field(const std::string &key) {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line)) {
        if (line.compare(0, key.size(), key) != 0) continue;
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
    }
    return "";
}

// The first hardware PMU perf_event knows: "cpu" (x86), "cpu_core" (hybrid), "armv8_*", "apple_*".
std::string hardware_pmu_name() {
    const char *candidates[] = {"cpu", "cpu_core", "cpu_atom"};
    for (const char *c : candidates) {
        std::ifstream f(std::string("/sys/bus/event_source/devices/") + c + "/type");
        if (f) return c;
    }
    std::string found;
    if (DIR *d = opendir("/sys/bus/event_source/devices")) {
        while (dirent *ent = readdir(d)) {
            std::string n = ent->d_name;
            if (n != "cpu" && is_cpu_pmu_name(n)) {
                found = n;
                break;
            }
        }
        closedir(d);
    }
    return found;
}

}  // namespace

bool is_cpu_pmu_name(const std::string &n) {
    return n == "cpu" || n == "cpu_core" || n == "cpu_atom" || n.rfind("armv8", 0) == 0 ||
           n.rfind("apple_", 0) == 0 || n.rfind("arm_", 0) == 0;
}

PmuShape detect_pmu() {
    PmuShape s;
    std::string vendor = cpuinfo_field("vendor_id");
    std::string family = cpuinfo_field("cpu family");
    std::string model = cpuinfo_field("model\t");
    if (model.empty()) model = cpuinfo_field("model");
    s.cpu.name = cpuinfo_field("model name");
    if (vendor.empty()) vendor = cpuinfo_field("CPU implementer");  // arm64
    if (family.empty()) family = cpuinfo_field("CPU architecture");
    if (model.empty() || model == s.cpu.name) model = cpuinfo_field("CPU part");
    if (s.cpu.name.empty()) s.cpu.name = vendor.empty() ? "unknown CPU" : vendor + " CPU";
    s.cpu.id = (vendor.empty() ? "unknown" : vendor) + "-" + (family.empty() ? "0" : family) + "-" +
               (model.empty() ? "0" : model);
    std::string pmu = hardware_pmu_name();
    s.has_pmu = !pmu.empty();
    s.cpu.pmu = s.has_pmu ? pmu : "none";
    if (!s.has_pmu) return s;  // no counters at all: 0 and 0 are the truth
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (vendor == "AuthenticAMD") {
        // AMD has no fixed counters. The kernel's rule: PerfMonV2 says the number (leaf
        // 0x80000022), else 6 with the core counter extensions (PerfCtrExtCore), else 4.
        if (__get_cpuid(0x80000022, &a, &b, &c, &d) && (a & 1))
            s.configurable = b & 0xF;
        else if (__get_cpuid(0x80000001, &a, &b, &c, &d))
            s.configurable = (c & (1u << 23)) ? 6 : 4;
    } else if (__get_cpuid_max(0, nullptr) >= 0xA && __get_cpuid(0xA, &a, &b, &c, &d)) {
        s.configurable = (a >> 8) & 0xFF;
        s.fixed = (a & 0xFF) > 1 ? (d & 0x1F) : 0;
    }
    if (s.configurable == 0)
        s.unknown = "the " + pmu + " PMU is registered, but CPUID reports no counters for it";
#else
    s.probe_arm = pmu.rfind("armv8", 0) == 0 || pmu.rfind("arm_", 0) == 0;
    if (!s.probe_arm)
        s.unknown = "the kernel does not say how many counters the " + pmu + " PMU has";
#endif
    return s;
}

}  // namespace kpc::perf
