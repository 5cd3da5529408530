// Chip knowledge shared by both simulator libraries. See chips.h.
#include "chips.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace kpsim {
namespace {

struct ChipDef {
    const char *name;
    Gen gen;
    uint32_t family;         // hw.cpufamily of the chip whose plist this is
    uint32_t alt_family[2];  // other cpufamily values that map to the same plist (0 = none)
    const char *marketing;
    const char *board;  // XNU board config whose secure-CPC allow-list the kernel uses
};

// apple-kperf.md §3. Marketing names: "Apple A14/M1", "Apple A15", "Apple A16" and
// "Apple silicon" are the values darwin-kperf's codegen saw in the a14, a15, a16, as4 and
// as5 plists. The marketing names of the as1/as2/as3 and the -1/-2 plists are not public;
// the simulator uses "Apple silicon" for them (unknown; documented in README.md).
// Boards (XNU ARM64_BOARD_CONFIG_*): A16 (T8120) has no published list and uses M3's, the
// as3 plist's M3 Pro/Max use T6031 (T6030's list is the same), and M5 and A18/A19, whose
// lists postdate xnu-11417, use M4's T8132 list, the strictest plausible reading.
const ChipDef kChips[] = {
    {"a14", kGenM1, 0x1b588bb3u, {0, 0}, "Apple A14/M1", "T8103"},
    {"a15", kGenM2, 0xda33d83du, {0, 0}, "Apple A15", "T8112"},
    {"a16", kGenM3, 0x8765edeau, {0, 0}, "Apple A16", "T8122_T8130"},
    {"as1", kGenM3, 0xfa33415eu, {0, 0}, "Apple silicon", "T8122_T8130"},
    {"as2", kGenM3, 0x2876f5b5u, {0, 0}, "Apple silicon", "T8122_T8130"},
    {"as3", kGenM3, 0x5f4dea93u, {0x72015832u, 0}, "Apple silicon", "T6031"},
    {"as4", kGenM45, 0x6f5129acu, {0, 0}, "Apple silicon", "T8132"},
    {"as4-1", kGenM45, 0x17d5b93au, {0, 0}, "Apple silicon", "T6041"},
    {"as4-2", kGenM45, 0x204526d0u, {0x75d4acb9u, 0}, "Apple silicon", "T8132"},
    {"as5", kGenM45, 0x1d5a87e8u, {0, 0}, "Apple silicon", "T8132"},
    {"as5-1", kGenM45, 0xda9d04c3u, {0xf76c5b1au, 0}, "Apple silicon", "T8132"},
    {"as5-2", kGenM45, 0x01d7a72bu, {0xab345f09u, 0}, "Apple silicon", "T8132"},
};

constexpr const char *kLegacyName = "a14-legacy48";

uint32_t fnv1a(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; ++s) {
        h ^= static_cast<unsigned char>(*s);
        h *= 16777619u;
    }
    return h;
}

bool valid_looking(const char *s) {
    // [a-z]{1,3}[0-9]{1,3}(-[0-9]+)?
    size_t i = 0, letters = 0, digits = 0;
    while (s[i] >= 'a' && s[i] <= 'z') { ++i; ++letters; }
    if (letters < 1 || letters > 3) return false;
    while (s[i] >= '0' && s[i] <= '9') { ++i; ++digits; }
    if (digits < 1 || digits > 3) return false;
    if (s[i] == '\0') return true;
    if (s[i] != '-') return false;
    ++i;
    size_t tail = 0;
    while (s[i] >= '0' && s[i] <= '9') { ++i; ++tail; }
    return tail > 0 && s[i] == '\0';
}

Machine from_chip(const ChipDef &c, bool legacy) {
    Machine m;
    m.db_name = c.name;
    m.gen = c.gen;
    m.cpufamily = c.family;
    m.marketing = c.marketing;
    m.board = c.board;
    m.legacy48 = legacy;
    return m;
}

std::vector<EventDef> build_csv_events(int column) {
    std::vector<EventDef> out;
    for (size_t i = 0; i < kCsvEventCount; ++i) {
        const CsvEvent &row = kCsvEvents[i];
        const CsvGen &g = row.gen[column];
        if (!g.present) continue;
        EventDef e{};
        e.name = row.name;
        e.mask = g.mask;
        e.number = static_cast<uint16_t>(g.number);
        e.fixed = g.fixed;
        if (g.fixed >= 0) {
            // The plists give the fixed events no description (the CSV's text for them is
            // an annotation); alias and fallback per darwin-kperf's generated tables.
            e.description = nullptr;
            e.alias = g.fixed == 0 ? "Cycles" : "Instructions";
            e.fallback = g.fixed == 1 ? "INST_ALL" : nullptr;
        } else {
            e.description = row.description;
        }
        out.push_back(e);
    }
    return out;
}

std::vector<EventDef> build_unknown_events() {
    // A database for a chip nobody has seen yet: the two fixed events every Apple PMU has,
    // plus a few configurable events with familiar names but selectors that exist on no
    // known chip (as happened for CORE_ACTIVE_CYCLE 0x02 -> 0x11 on M4).
    std::vector<EventDef> out;
    out.push_back({"FIXED_CYCLES", nullptr, "Cycles", nullptr, 0x1, 0, 0});
    out.push_back({"FIXED_INSTRUCTIONS", nullptr, "Instructions", "INST_ALL", 0x2, 0, 1});
    out.push_back({"CORE_ACTIVE_CYCLE", "Cycles while the core was active", nullptr, nullptr,
                   0, 0x1001, -1});
    out.push_back({"INST_ALL", "All retired instructions", nullptr, nullptr, 0xFC, 0x1002, -1});
    out.push_back({"INST_BRANCH", "Retired branch instructions", nullptr, nullptr, 0xFC, 0x1003,
                   -1});
    out.push_back({"BRANCH_MISPRED_NONSPEC", "Retired branch instructions that mispredicted",
                   nullptr, nullptr, 0xFC, 0x1004, -1});
    out.push_back({"L1D_CACHE_MISS_LD_NONSPEC", "Retired loads that missed in the L1 data cache",
                   nullptr, nullptr, 0, 0x1006, -1});
    out.push_back({"ZZ_FUTURE_UNIT_STALL", "Cycles while a future unit was stalled", nullptr,
                   nullptr, 0, 0x1005, -1});
    return out;
}

struct NamedRate {
    const char *name;
    uint64_t milli_per_ns;
};

// Semantic rates for well-known events so that, e.g., CORE_ACTIVE_CYCLE tracks the fixed
// cycle counter and INST_ALL the fixed instruction counter. Everything else gets a rate
// derived from its name (0.001 .. 1 events per ns).
const NamedRate kNamedRates[] = {
    {"CORE_ACTIVE_CYCLE", kCyclesMilliPerNs},
    {"INST_ALL", kInstructionsMilliPerNs},
    {"RETIRE_UOP", 6600},
    {"MAP_UOP", 6900},
    {"SCHEDULE_UOP", 6800},
    {"MAP_INT_UOP", 3500},
    {"MAP_LDST_UOP", 2200},
    {"MAP_SIMD_UOP", 400},
    {"INST_INT_ALU", 2500},
    {"INST_LDST", 1800},
    {"INST_INT_LD", 1200},
    {"INST_INT_ST", 600},
    {"INST_SIMD_ALU", 300},
    {"INST_BRANCH", 1000},
    {"INST_BRANCH_COND", 700},
    {"INST_BRANCH_TAKEN", 600},
    {"INST_BRANCH_CALL", 80},
    {"INST_BRANCH_RET", 80},
    {"INST_BRANCH_INDIR", 40},
    {"BRANCH_MISPRED_NONSPEC", 10},
    {"BRANCH_COND_MISPRED_NONSPEC", 8},
    {"L1D_TLB_ACCESS", 1800},
    {"L1D_CACHE_MISS_LD", 25},
    {"L1D_CACHE_MISS_LD_NONSPEC", 20},
    {"L1D_CACHE_MISS_ST", 10},
    {"L1D_CACHE_MISS_ST_NONSPEC", 8},
    {"L1D_TLB_MISS", 5},
};

}  // namespace

bool resolve_name(const char *name, bool allow_none, Machine *out) {
    if (name == nullptr || out == nullptr) return false;
    for (const ChipDef &c : kChips) {
        if (std::strcmp(name, c.name) == 0) {
            *out = from_chip(c, false);
            return true;
        }
    }
    if (std::strcmp(name, kLegacyName) == 0) {
        // The older-macOS M1 database: its plist still calls itself "a14".
        *out = from_chip(kChips[0], true);
        return true;
    }
    if (allow_none && std::strcmp(name, "none") == 0) {
        Machine m;
        m.db_name = "none";
        m.gen = kGenNone;
        m.cpufamily = 0;
        m.marketing = nullptr;
        *out = m;
        return true;
    }
    unsigned type = 0, subtype = 0, family = 0;
    int consumed = 0;
    if (std::sscanf(name, "cpu_%x_%x_%x%n", &type, &subtype, &family, &consumed) == 3 &&
        name[consumed] == '\0') {
        if (type != kCpuTypeArm64 || subtype != kCpuSubtypeArm64e) return false;
        for (const ChipDef &c : kChips) {
            if (family == c.family || family == c.alt_family[0] || family == c.alt_family[1]) {
                *out = from_chip(c, false);
                return true;
            }
        }
        return false;
    }
    if (valid_looking(name)) {
        Machine m;
        m.db_name = intern(name);
        m.gen = kGenUnknown;
        m.cpufamily = fnv1a(name) | 1u;
        // "as6" is an M6 by Apple's naming; other unknown names keep the generic text.
        m.marketing = (name[0] == 'a' && name[1] == 's' && name[2] >= '0' && name[2] <= '9')
                          ? intern(std::string("Apple M") + (name + 2))
                          : "Apple silicon";
        *out = m;
        return true;
    }
    return false;
}

const std::vector<EventDef> &events_for(Gen gen) {
    static const std::vector<EventDef> m1 = build_csv_events(0);
    static const std::vector<EventDef> m2 = build_csv_events(1);
    static const std::vector<EventDef> m3 = build_csv_events(2);
    static const std::vector<EventDef> m45 = build_csv_events(3);
    static const std::vector<EventDef> unknown = build_unknown_events();
    static const std::vector<EventDef> none;
    switch (gen) {
    case kGenM1: return m1;
    case kGenM2: return m2;
    case kGenM3: return m3;
    case kGenM45: return m45;
    case kGenUnknown: return unknown;
    case kGenNone: break;
    }
    return none;
}

std::string cpu_id_string(uint32_t cpufamily) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "cpu_%x_%x_%x", kCpuTypeArm64, kCpuSubtypeArm64e, cpufamily);
    return buf;
}

uint64_t rate_milli_for_selector(Gen gen, uint16_t selector) {
    if (selector == 0) return 0;
    for (const EventDef &e : events_for(gen)) {
        if (e.fixed >= 0 || e.number != selector) continue;
        for (const NamedRate &r : kNamedRates) {
            if (std::strcmp(r.name, e.name) == 0) return r.milli_per_ns;
        }
        return 1 + fnv1a(e.name) % 1000;
    }
    // A selector the database does not know (only reachable with a custom allow-list).
    return 1 + (static_cast<uint64_t>(selector) * 2654435761u) % 997;
}

const char *intern(const std::string &s) {
    // Lives as long as the library (freed at dlclose / exit with the other statics).
    static std::mutex mu;
    static std::set<std::string> pool;
    std::lock_guard<std::mutex> lock(mu);
    return pool.insert(s).first->c_str();
}

bool env_flag(const char *name, bool dflt) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0') return dflt;
    return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "false") == 0 ||
             std::strcmp(v, "no") == 0 || std::strcmp(v, "off") == 0);
}

std::string env_string(const char *name, const char *dflt) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0') return dflt ? dflt : "";
    return v;
}

bool parse_int(const std::string &text, long long *out) {
    if (text.empty()) return false;
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(text.c_str(), &end, 0);
    if (errno != 0 || end == nullptr || *end != '\0') return false;
    *out = v;
    return true;
}

bool parse_errno(const std::string &text, int *out) {
    static const struct {
        const char *name;
        int value;
    } kNames[] = {
        {"EPERM", EPERM},   {"ENOENT", ENOENT}, {"EIO", EIO},         {"ENOMEM", ENOMEM},
        {"EACCES", EACCES}, {"EFAULT", EFAULT}, {"EBUSY", EBUSY},     {"EINVAL", EINVAL},
        {"ENOTSUP", ENOTSUP}, {"ENODEV", ENODEV}, {"EAGAIN", EAGAIN},
        {"ECANCELED", ECANCELED}, {"ENOSYS", ENOSYS},
    };
    for (const auto &n : kNames) {
        if (text == n.name) {
            *out = n.value;
            return true;
        }
    }
    long long v = 0;
    if (!parse_int(text, &v) || v < 0 || v > 4095) return false;
    *out = static_cast<int>(v);
    return true;
}

void FaultList::clear() { faults_.clear(); }

void FaultList::add(const std::string &symbol, int nth, int value) {
    faults_.push_back(Fault{symbol, nth, value});
}

bool FaultList::hit(const char *symbol, int *value) {
    bool fired = false;
    for (auto it = faults_.begin(); it != faults_.end();) {
        if (it->symbol == symbol && --it->remaining <= 0) {
            if (!fired) {
                *value = it->value;
                fired = true;
            }
            it = faults_.erase(it);
        } else {
            ++it;
        }
    }
    return fired;
}

void FaultList::add_spec(const std::string &spec, bool (*known)(const std::string &),
                         bool value_is_errno) {
    size_t start = 0;
    while (start <= spec.size()) {
        size_t comma = spec.find(',', start);
        std::string item = spec.substr(start, comma == std::string::npos ? std::string::npos
                                                                          : comma - start);
        size_t c1 = item.find(':');
        size_t c2 = c1 == std::string::npos ? std::string::npos : item.find(':', c1 + 1);
        if (c1 != std::string::npos && c2 != std::string::npos) {
            std::string sym = item.substr(0, c1);
            long long nth = 0;
            int value = 0;
            bool ok_nth = parse_int(item.substr(c1 + 1, c2 - c1 - 1), &nth) && nth >= 1 &&
                          nth <= 1000000;
            bool ok_value = false;
            if (value_is_errno) {
                ok_value = parse_errno(item.substr(c2 + 1), &value);
            } else {
                long long v = 0;
                ok_value = parse_int(item.substr(c2 + 1), &v) && v >= 0 && v <= 1000;
                value = static_cast<int>(v);
            }
            if (ok_nth && ok_value && known(sym)) add(sym, static_cast<int>(nth), value);
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
}

}  // namespace kpsim
