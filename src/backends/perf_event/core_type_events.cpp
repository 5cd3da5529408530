#include "backends/perf_event/core_type_events.hpp"

#include <dirent.h>
#include <linux/perf_event.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backends/perf_event/cpu_info.hpp"
#include "core/error.hpp"

namespace kpc::perf {
namespace {

constexpr unsigned kPmuTypeShift = 32;  // PERF_PMU_TYPE_SHIFT (uapi, Linux 5.13+)

enum class Vendor { intel, apple };

struct CoreType {
    const char *letter;  // "P" or "E"
    const char *intel;   // Intel hybrid PMU name
    const char *apple[2];  // Asahi Linux PMU names: M1 family, M2 family
};

constexpr CoreType kP = {"P", "cpu_core", {"apple_firestorm_pmu", "apple_avalanche_pmu"}};
constexpr CoreType kE = {"E", "cpu_atom", {"apple_icestorm_pmu", "apple_blizzard_pmu"}};

struct Pmu {
    std::string name;
    Vendor vendor = Vendor::intel;
};

bool has(const std::vector<std::string> &names, const std::string &n) {
    for (const std::string &x : names)
        if (x == n) return true;
    return false;
}

// The registered PMU that counts core type `t`, if any.
bool find_pmu(const std::vector<std::string> &names, const CoreType &t, Pmu *out) {
    if (has(names, t.intel)) {
        *out = {t.intel, Vendor::intel};
        return true;
    }
    for (const char *a : t.apple) {
        if (has(names, a)) {
            *out = {a, Vendor::apple};
            return true;
        }
    }
    return false;
}

bool is_known_apple(const std::string &n) {
    for (const CoreType *t : {&kP, &kE})
        for (const char *a : t->apple)
            if (n == a) return true;
    return false;
}

// First line of a sysfs file without trailing white space; false if unreadable.
bool read_line(const std::string &path, std::string *out) {
    std::ifstream f(path);
    if (!f) return false;
    out->clear();
    std::getline(f, *out);
    while (!out->empty() && std::isspace(static_cast<unsigned char>(out->back()))) out->pop_back();
    return true;
}

// A whole-string unsigned number (base 0: decimal or 0x hex); false if anything else.
bool parse_number(const std::string &s, uint64_t *v) {
    if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    char *end = nullptr;
    errno = 0;
    unsigned long long x = std::strtoull(s.c_str(), &end, 0);
    if (errno != 0 || *end != '\0') return false;
    *v = x;
    return true;
}

// "event=0x0002" (an Apple PMU's events/cycles) placed where format/event says
// ("config:0-7"). Empty string on success, else what was wrong.
std::string apple_event_config(const std::string &dir, const char *event, uint64_t *config) {
    const std::string event_path = dir + "/events/" + event;
    const std::string format_path = dir + "/format/event";
    std::string text, format;
    if (!read_line(event_path, &text)) return event_path + " is missing";
    uint64_t code = 0;
    if (text.rfind("event=", 0) != 0 || !parse_number(text.substr(6), &code))
        return event_path + " reads '" + text + "', not event=<code>";
    if (!read_line(format_path, &format)) return format_path + " is missing";
    uint64_t lo = 0, hi = 0;
    const size_t dash = format.find('-');
    const bool ok = format.rfind("config:", 0) == 0 &&
                    (dash == std::string::npos
                         ? parse_number(format.substr(7), &lo) && (hi = lo, true)
                         : parse_number(format.substr(7, dash - 7), &lo) &&
                               parse_number(format.substr(dash + 1), &hi));
    if (!ok || hi < lo || hi > 63) return format_path + " reads '" + format + "', not config:<lo>-<hi>";
    const unsigned width = static_cast<unsigned>(hi - lo + 1);
    if (width < 64 && (code >> width) != 0)
        return event_path + "'s code does not fit " + format_path + " ('" + format + "')";
    *config = code << lo;
    return "";
}

std::string no_hybrid_reason(const std::vector<std::string> &names, const std::string &root) {
    std::string unknown_apple;
    bool cpu_pmu = false;
    for (const std::string &n : names) {
        cpu_pmu = cpu_pmu || is_cpu_pmu_name(n);
        if (n.rfind("apple_", 0) == 0 && !is_known_apple(n))
            unknown_apple += (unknown_apple.empty() ? "" : ", ") + n;
    }
    if (!unknown_apple.empty())
        return "no hybrid PMU libkpc knows: " + root + " has " + unknown_apple +
               ", whose core types (P or E) libkpc does not know yet; count them by PMU "
               "with perf stat -e <pmu>/cycles/";
    if (cpu_pmu) return "no hybrid PMU: this CPU has one core type; use cycles/instructions";
    return "no hybrid PMU: the kernel lists no CPU PMU in " + root +
           " (a virtual machine without a virtual PMU?), so no hardware event counts here";
}

}  // namespace

bool is_per_core_type(GenericId id) {
    return id == GenericId::p_cycles || id == GenericId::e_cycles ||
           id == GenericId::p_instructions || id == GenericId::e_instructions;
}

Encoding encode_per_core_type(GenericId id, const std::string &pmu_root) {
    const bool p = id == GenericId::p_cycles || id == GenericId::p_instructions;
    const bool cycles = id == GenericId::p_cycles || id == GenericId::e_cycles;
    const CoreType &own = p ? kP : kE;
    const CoreType &other = p ? kE : kP;
    const uint64_t hw = cycles ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_HW_INSTRUCTIONS;
    const char *event = cycles ? "cycles" : "instructions";
    Encoding enc{PERF_TYPE_HARDWARE, hw,
                 std::string(cycles ? "PERF_COUNT_HW_CPU_CYCLES" : "PERF_COUNT_HW_INSTRUCTIONS") +
                     " on the " + own.letter + "-core PMU"};

    std::vector<std::string> names;
    DIR *d = opendir(pmu_root.c_str());
    if (!d) {
        enc.unavailable = "no hybrid PMU: cannot list " + pmu_root + " " + errno_text(errno);
        return enc;
    }
    while (dirent *ent = readdir(d))
        if (ent->d_name[0] != '.') names.push_back(ent->d_name);
    closedir(d);

    Pmu pmu, twin;
    const bool found = find_pmu(names, own, &pmu);
    if (!found && !find_pmu(names, other, &twin)) {
        enc.unavailable = no_hybrid_reason(names, pmu_root);
        return enc;
    }
    if (!found) {
        enc.unavailable = std::string("this hybrid CPU's ") + own.letter + "-core PMU is missing: " +
                          pmu_root + " has " + twin.name + " but no " + own.intel + ", " +
                          own.apple[0] + " or " + own.apple[1];
        return enc;
    }
    const std::string dir = pmu_root + "/" + pmu.name;
    std::string text;
    uint64_t type = 0;
    if (!read_line(dir + "/type", &text) || !parse_number(text, &type) || type > UINT32_MAX) {
        enc.unavailable = dir + "/type is unreadable or not a PMU type number";
        return enc;
    }
    // A PMU whose cores are all offline lists no CPU (Intel: cpu_atom/cpus empty).
    if (read_line(dir + "/cpus", &text) && text.empty()) {
        enc.unavailable = "the " + pmu.name + " PMU lists no online CPU in " + dir +
                          "/cpus: bring its cores online to count them";
        return enc;
    }
    if (pmu.vendor == Vendor::intel) {
        enc.type = PERF_TYPE_HARDWARE;
        enc.config = (type << kPmuTypeShift) | hw;
    } else {
        uint64_t config = 0;
        std::string why = apple_event_config(dir, event, &config);
        if (!why.empty()) {
            enc.unavailable = "the " + pmu.name + " PMU does not describe its " + event +
                              " event: " + why;
            return enc;
        }
        enc.type = static_cast<uint32_t>(type);
        enc.config = config;
    }
    enc.native_name = pmu.name + "/" + event + "/";
    return enc;
}

uint32_t explicit_pmu_type(const Event &e) {
    if (e.perf_type == PERF_TYPE_HARDWARE || e.perf_type == PERF_TYPE_HW_CACHE)
        return static_cast<uint32_t>(e.perf_config >> kPmuTypeShift);
    return e.perf_type >= PERF_TYPE_MAX ? e.perf_type : 0;
}

}  // namespace kpc::perf
