// Chip / database knowledge shared by libkperf_sim (the simulated kernel: cpu string,
// secure-CPC allow-list, counter rates) and libkperfdata_sim (the kpep databases).
// Everything here has hidden visibility; each library gets its own copy.
#ifndef KPSIM_CHIPS_H
#define KPSIM_CHIPS_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace kpsim {

// One CSV row (generated from data/apple-events.csv by gen_events.py).
struct CsvGen {
    int present;      // 1 = the event exists in this generation's plist
    uint32_t number;  // selector (0 for fixed events, which have none)
    uint32_t mask;    // plist counters_mask, 0 = absent
    int fixed;        // fixed counter index, -1 = configurable
};
struct CsvEvent {
    const char *name;
    const char *description;
    CsvGen gen[4];  // M1 (a14), M2 (a15), M3 (a16/as1..3), M4/M5 (as4*, as5*)
};
extern const CsvEvent kCsvEvents[];
extern const size_t kCsvEventCount;

enum Gen : int {
    kGenM1 = 0,
    kGenM2 = 1,
    kGenM3 = 2,
    kGenM45 = 3,
    kGenUnknown = 4,  // a valid-looking db name the simulator does not know ("zz9")
    kGenNone = 5,     // simulated machine without any kpep database ("none")
};

// Counter geometry, identical on every Apple-silicon generation (apple-kperf.md §3/§4.1).
constexpr uint32_t kFixedBits = 0x3;     // counters 0 (cycles), 1 (instructions)
constexpr uint32_t kConfigBits = 0x3FC;  // counters 2..9
constexpr uint32_t kPowerBits = 0xE0;    // counters 5..7, reserved by the Power Manager
constexpr uint32_t kFixedCount = 2;
constexpr uint32_t kConfigCount = 8;
constexpr uint32_t kPowerCount = 3;
constexpr uint32_t kCounterCount = kFixedCount + kConfigCount;
constexpr uint32_t kCpuTypeArm64 = 0x100000c;
constexpr uint32_t kCpuSubtypeArm64e = 2;

struct EventDef {
    const char *name;
    const char *description;  // NULL for the fixed events (the plists have none)
    const char *alias;        // "Cycles" / "Instructions" for the fixed events, else NULL
    const char *fallback;     // "INST_ALL" for FIXED_INSTRUCTIONS, else NULL
    uint32_t mask;            // plist counters_mask, 0 = absent
    uint16_t number;          // selector, 0 for fixed events
    int fixed;                // fixed counter index, -1 = configurable
};

// What a database name resolves to.
struct Machine {
    const char *db_name = nullptr;   // kpep_db.name (static or interned)
    Gen gen = kGenNone;
    uint32_t cpufamily = 0;
    const char *marketing = nullptr;
    const char *board = nullptr;     // XNU board of its secure-CPC allow-list; NULL = none known
    bool legacy48 = false;           // 48-byte kpep_event / 144-byte kpep_db
};

// Resolve a name as kpep_db_create would see it: a db name ("a14", "as4-1", ...), the
// simulator-only "a14-legacy48", a "cpu_<type>_<subtype>_<family>" symlink name of a known
// chip, or an unknown but valid-looking db name ([a-z]{1,3}[0-9]{1,3}(-[0-9]+)?).
// Returns false when no such database would exist. "none" resolves only if allow_none.
bool resolve_name(const char *name, bool allow_none, Machine *out);

const std::vector<EventDef> &events_for(Gen gen);

// "cpu_100000c_2_1b588bb3"
std::string cpu_id_string(uint32_t cpufamily);

// Counter-value model: milli-events per nanosecond of thread CPU time.
constexpr uint64_t kCyclesMilliPerNs = 3000;        // ~3 GHz
constexpr uint64_t kInstructionsMilliPerNs = 6000;  // IPC 2
uint64_t rate_milli_for_selector(Gen gen, uint16_t selector);

// Pointer to a copy of s that lives as long as the library.
const char *intern(const std::string &s);

// Environment helpers.
bool env_flag(const char *name, bool dflt);
std::string env_string(const char *name, const char *dflt);
// Parse "123", "0x7b" or an errno name ("EPERM"); false if not understood.
bool parse_errno(const std::string &text, int *out);
bool parse_int(const std::string &text, long long *out);

// Fault injection: the nth future call of a symbol fails with `value`.
class FaultList {
public:
    void clear();
    void add(const std::string &symbol, int nth, int value);
    // Count one call of `symbol`; true (and *value) if a fault fires now.
    bool hit(const char *symbol, int *value);
    // Parse "sym:nth:value[,sym:nth:value]"; entries for unknown symbols are ignored.
    void add_spec(const std::string &spec, bool (*known)(const std::string &),
                  bool value_is_errno);

private:
    struct Fault {
        std::string symbol;
        int remaining;
        int value;
    };
    std::vector<Fault> faults_;
};

}  // namespace kpsim

#endif  // KPSIM_CHIPS_H
