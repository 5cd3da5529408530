#include "backends/kperf/chip.hpp"

#include <string>

#include "kpc/kperf_raw.h"

namespace kpc::kperf {
namespace {

struct KnownDb {
    const char *db;
    Generation generation;
    const char *name;
};

// kpep database names (/usr/share/kpep/<name>.plist) and the chips that load them.
// Chips in one group share their PMU events (jiegec/apple-pmu).
constexpr KnownDb kApple[] = {
    {"a7", Generation::apple_a_series, "Apple A7"},
    {"a8", Generation::apple_a_series, "Apple A8"},
    {"a9", Generation::apple_a_series, "Apple A9"},
    {"a10", Generation::apple_a_series, "Apple A10"},
    {"a11", Generation::apple_a_series, "Apple A11"},
    {"a12", Generation::apple_a_series, "Apple A12"},
    {"a13", Generation::apple_a_series, "Apple A13"},
    {"a14", Generation::m1, "Apple M1"},
    {"a15", Generation::m2, "Apple M2"},
    {"a16", Generation::m3, "Apple A16"},
    {"as1", Generation::m3, "Apple M3"},
    {"as2", Generation::m3, "Apple A17 Pro"},
    {"as3", Generation::m3, "Apple M3 Pro/Max"},
    {"as4", Generation::m4, "Apple M4"},
    {"as4-1", Generation::m4, "Apple M4 Pro/Max"},
    {"as4-2", Generation::m4, "Apple A18"},
    {"as5", Generation::m5, "Apple M5"},
    {"as5-1", Generation::m5, "Apple M5 Pro/Max"},
    {"as5-2", Generation::m5, "Apple A19"},
};

// Intel Macs' kpep databases are named after the microarchitecture.
constexpr const char *kIntel[] = {
    "merom", "penryn", "nehalem", "westmere", "sandybridge", "ivybridge", "haswell",
    "broadwell", "skylake", "kabylake", "coffeelake", "whiskeylake", "cometlake",
    "amberlake", "cannonlake", "icelake", "cascadelake",
};

}  // namespace

const char *generation_name(Generation g) {
    switch (g) {
    case Generation::m1: return "M1";
    case Generation::m2: return "M2";
    case Generation::m3: return "M3";
    case Generation::m4: return "M4";
    case Generation::m5: return "M5";
    case Generation::apple_a_series: return "A-series";
    case Generation::intel: return "Intel";
    case Generation::unknown: break;
    }
    return "unknown";
}

Chip identify_chip(std::string_view db_name, std::string_view marketing_name,
                   uint32_t architecture) {
    Chip c;
    c.db_name = std::string(db_name);
    const std::string db(db_name);
    for (const KnownDb &k : kApple) {
        if (db == k.db) {
            c.generation = k.generation;
            c.name = k.name;
            if (k.generation == Generation::apple_a_series)
                c.pmu = "Apple PMU (" + db + ", pre-M1 A-series generation)";
            else
                c.pmu = "Apple PMU (" + db + ", " + generation_name(k.generation) + " generation)";
            return c;
        }
    }
    // Intel by microarchitecture name, by an x86 cputype in "cpu_7_..." names, or by the
    // database's architecture field.
    bool intel = db.rfind("cpu_7_", 0) == 0 || architecture == KP_KPEP_ARCH_I386 ||
                 architecture == KP_KPEP_ARCH_X86_64;
    for (const char *name : kIntel)
        if (db == name) intel = true;
    if (intel) {
        c.generation = Generation::intel;
        c.name = marketing_name.empty() ? "Intel " + db : std::string(marketing_name);
        c.pmu = "Intel PMU (" + db + ")";
        return c;
    }
    c.generation = Generation::unknown;
    c.name = marketing_name.empty() ? "unknown CPU (kpep database '" + db + "')"
                                    : std::string(marketing_name);
    c.pmu = "unknown PMU (kpep database '" + db + "', not known to libkpc)";
    return c;
}

}  // namespace kpc::kperf
