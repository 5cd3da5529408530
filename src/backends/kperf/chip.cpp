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

// Marketing names, for a kpep_db_name() that returns them. "Apple silicon" (the as4/as5
// plists' own) names no generation, so it is not listed. Matched as a prefix, so that
// "Apple M4 Pro" is an M4.
struct KnownMarketing {
    const char *prefix;
    const char *db;  // the kApple entry it stands for
};
constexpr KnownMarketing kMarketing[] = {
    {"Apple A14/M1", "a14"}, {"Apple A15", "a15"}, {"Apple A16", "a16"},
    {"Apple M1", "a14"},     {"Apple M2", "a15"},  {"Apple M3", "as1"},
    {"Apple M4", "as4"},     {"Apple M5", "as5"},
};

const KnownDb *known_db(std::string_view name) {
    for (const KnownDb &k : kApple)
        if (name == k.db) return &k;
    return nullptr;
}

const KnownDb *known_marketing(std::string_view name) {
    for (const KnownMarketing &m : kMarketing) {
        std::string_view p(m.prefix);
        // "Apple M1" must not match "Apple M10": the prefix ends the name or a word.
        if (name.substr(0, p.size()) == p && (name.size() == p.size() || name[p.size()] == ' '))
            return known_db(m.db);
    }
    return nullptr;
}

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

Chip identify_chip(std::string_view db_name, std::string_view api_name,
                   std::string_view marketing_name, uint32_t architecture) {
    Chip c;
    const std::string db(db_name.empty() ? api_name : db_name);
    c.db_name = db;
    const KnownDb *k = known_db(db_name);
    if (!k) k = known_db(api_name);
    if (!k) k = known_marketing(api_name);
    if (!k) k = known_marketing(marketing_name);
    if (k) {
        c.generation = k->generation;
        c.name = k->name;  // the table's name, whichever source identified the chip
        // Found by a marketing name alone: the table's short name stands in for the field.
        if (db_name.empty()) c.db_name = known_db(api_name) ? std::string(api_name) : k->db;
        if (k->generation == Generation::apple_a_series)
            c.pmu = "Apple PMU (" + c.db_name + ", pre-M1 A-series generation)";
        else
            c.pmu = "Apple PMU (" + c.db_name + ", " + generation_name(k->generation) + " generation)";
        return c;
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
    if (!marketing_name.empty())
        c.name = std::string(marketing_name);
    else if (!api_name.empty() && api_name != db_name)
        c.name = std::string(api_name);
    else
        c.name = "unknown CPU (kpep database '" + db + "')";
    c.pmu = "unknown PMU (kpep database '" + db + "', not known to libkpc)";
    return c;
}

}  // namespace kpc::kperf
