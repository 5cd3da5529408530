// libkperfdata_sim: Apple's kperfdata.framework (kpep_* API) over databases generated from
// data/apple-events.csv, with Apple's struct layouts (apple-kperf.md §2.5).
//
// Every function returns a kpep error code (0 = KPEP_ERR_NONE). Objects are allocated with
// calloc at their exact Apple size so out-of-bounds reads are caught by ASan in consumers.
// Using a db or config pointer that this library did not create (or already freed) aborts
// with a message: on macOS that is undefined behaviour; here it is made loud.
#include "kpsim.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "apple_abi.h"
#include "chips.h"

#define KPSIM_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using namespace kpsim;

const char *const kSymbols[] = {
    "kpep_config_create", "kpep_config_add_event", "kpep_config_remove_event",
    "kpep_config_force_counters", "kpep_config_events_count", "kpep_config_events",
    "kpep_config_kpc", "kpep_config_kpc_count", "kpep_config_kpc_classes",
    "kpep_config_kpc_map", "kpep_db_create", "kpep_db_name", "kpep_db_aliases_count",
    "kpep_db_aliases", "kpep_db_counters_count", "kpep_db_events_count", "kpep_db_events",
    "kpep_db_event", "kpep_event_name", "kpep_event_alias", "kpep_event_description",
#ifndef KPSIM_OMIT_KPEP_DB_CREATEX
    "kpep_db_createx",
#endif
};

bool known_symbol(const std::string &s) {
    for (const char *k : kSymbols) {
        if (s == k) return true;
    }
    return false;
}

struct DbMeta {
    Machine machine;
    bool legacy = false;
    char *events = nullptr;  // event_arr
    size_t count = 0;
    size_t stride = 0;
};

class Data {
public:
    std::mutex mu;
    std::string chosen = "a14";
    FaultList faults;
    // Variants (README "Variants"): what kpep_db_name() returns, and kpep_config_kpc_map's
    // convention when no fixed-class event is in the config.
    bool db_name_short = false;   // KPSIM_DB_NAME_API=short; default: the marketing name
    bool map_absolute = false;    // KPSIM_KPC_MAP=absolute; default: class-relative
    bool lenient_flags = false;   // KPSIM_KPEP_FLAGS=lenient; default: strict (README)
    bool counts_from_plist = false;  // KPSIM_KPEP_COUNTS=plist; default: as the kernel reports
    std::unordered_map<const void *, DbMeta> dbs;
    std::unordered_set<const void *> configs;

    Data() { reset_locked(); }

    void reset_locked() {
        faults.clear();
        faults.add_spec(env_string("KPSIM_DATA_FAIL", ""), known_symbol, false);
        db_name_short = env_string("KPSIM_DB_NAME_API", "marketing") == "short";
        map_absolute = env_string("KPSIM_KPC_MAP", "relative") == "absolute";
        lenient_flags = env_string("KPSIM_KPEP_FLAGS", "strict") == "lenient";
        counts_from_plist = env_string("KPSIM_KPEP_COUNTS", "kernel") == "plist";
        std::string db = env_string("KPSIM_DB", "a14");
        Machine m;
        if (!resolve_name(db.c_str(), true, &m)) {
            std::fprintf(stderr, "kperfdata_sim: KPSIM_DB=%s is not a known database; using a14\n",
                         db.c_str());
            db = "a14";
        }
        chosen = db;
    }

    DbMeta &db_meta(const void *db, const char *fn) {
        auto it = dbs.find(db);
        if (it == dbs.end()) {
            std::fprintf(stderr, "kperfdata_sim: %s: %p is not a live kpep_db\n", fn, db);
            std::abort();
        }
        return it->second;
    }
    void check_config(const kpep_config *cfg, const char *fn) {
        if (configs.count(cfg) == 0) {
            std::fprintf(stderr, "kperfdata_sim: %s: %p is not a live kpep_config\n", fn,
                         static_cast<const void *>(cfg));
            std::abort();
        }
        (void)db_meta(cfg->db, fn);
    }
};

// Created at load, destroyed at unload (see kperf_sim.cpp). Objects a consumer did not
// free stay allocated: under LeakSanitizer they are reported as the consumer's leaks.
Data *g_data = nullptr;

Data &D() {
    if (g_data == nullptr) g_data = new Data();
    return *g_data;
}

using Lock = std::lock_guard<std::mutex>;

__attribute__((constructor)) void kpsim_data_load() { (void)D(); }
__attribute__((destructor)) void kpsim_data_unload() {
    Data *d = g_data;
    g_data = nullptr;
    delete d;
}

// ---- link to the simulated kernel (libkperf_sim), if it is loaded ----
// The kernel owns the machine's identity (kperfdata reads hw.cpufamily on a Mac). Its
// control symbols are looked up in the global scope first, then by soname with
// RTLD_NOLOAD, which also finds a copy dlopen()ed with RTLD_LOCAL.
template <typename Fn>
bool with_kernel_symbol(const char *name, Fn &&use) {
    if (void *p = dlsym(RTLD_DEFAULT, name)) {
        use(p);
        return true;
    }
    for (const char *soname : {"libkperf_sim.so", "libkperf_sim_missing.so"}) {
        void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
        if (h == nullptr) continue;
        void *p = dlsym(h, name);
        if (p != nullptr) use(p);
        dlclose(h);
        if (p != nullptr) return true;
    }
    return false;
}

std::string kernel_machine_or(const std::string &fallback) {
    std::string name = fallback;
    with_kernel_symbol("kpsim_get_chip", [&](void *p) {
        auto fn = reinterpret_cast<const char *(*)(void)>(p);
        const char *s = fn();
        if (s != nullptr) name = s;
    });
    return name;
}

void kernel_set_machine(const std::string &name) {
    with_kernel_symbol("kpsim_set_chip", [&](void *p) {
        auto fn = reinterpret_cast<int (*)(const char *)>(p);
        (void)fn(name.c_str());
    });
}

// ---- event field access for both layouts ----
struct EvView {
    uint32_t mask;
    uint16_t number;
    bool fixed;
};

bool event_in_db(const DbMeta &m, const void *ev) {
    auto p = static_cast<const char *>(ev);
    if (p < m.events || p >= m.events + m.count * m.stride) return false;
    return static_cast<size_t>(p - m.events) % m.stride == 0;
}

EvView view(const DbMeta &m, const void *ev) {
    if (m.legacy) {
        auto e = static_cast<const kpep_event_legacy48 *>(ev);
        return EvView{e->mask, e->number, e->is_fixed != 0};
    }
    auto e = static_cast<const kpep_event *>(ev);
    return EvView{e->mask, e->number, (e->flags & 1) != 0};
}

int create_db(const char *name, uint32_t flags, bool has_flags, kpep_db **db_ptr) {
    Data &d = D();
    int code = 0;
    {
        Lock lock(d.mu);
        if (d.faults.hit(has_flags ? "kpep_db_createx" : "kpep_db_create", &code)) return code;
    }
    if (db_ptr == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    if (has_flags) {
        if (flags & ~(KPEP_DB_FLAG_PUBLIC_ONLY | KPEP_DB_FLAG_INTERNAL_ONLY)) return KPEP_ERR_INVALID_ARGUMENT;
        if (flags == (KPEP_DB_FLAG_PUBLIC_ONLY | KPEP_DB_FLAG_INTERNAL_ONLY)) return KPEP_ERR_INVALID_ARGUMENT;
        // Internal databases live in /usr/local/share/kpep, absent on customer machines.
        if (flags & KPEP_DB_FLAG_INTERNAL_ONLY) return KPEP_ERR_DB_NOT_FOUND;
    }
    Machine m;
    if (name == nullptr) {
        std::string fallback;
        {
            Lock lock(d.mu);
            fallback = d.chosen;
        }
        std::string machine = kernel_machine_or(fallback);  // outside our lock
        if (!resolve_name(machine.c_str(), true, &m) || m.gen == kGenNone) return KPEP_ERR_DB_NOT_FOUND;
    } else if (!resolve_name(name, false, &m)) {
        return KPEP_ERR_DB_NOT_FOUND;
    }

    const std::vector<EventDef> &evs = events_for(m.gen);
    const size_t n = evs.size();
    const size_t stride = m.legacy48 ? sizeof(kpep_event_legacy48) : sizeof(kpep_event);
    char *events = static_cast<char *>(std::calloc(n ? n : 1, stride));
    void *dbmem = std::calloc(1, m.legacy48 ? sizeof(kpep_db_legacy144) : sizeof(kpep_db));
    void **fixed = static_cast<void **>(std::calloc(kFixedCount, sizeof(void *)));
    if (events == nullptr || dbmem == nullptr || fixed == nullptr) {
        std::free(events);
        std::free(dbmem);
        std::free(fixed);
        return KPEP_ERR_OUT_OF_MEMORY;
    }
    size_t aliases = 0;
    for (size_t i = 0; i < n; ++i) {
        const EventDef &e = evs[i];
        void *slot = events + i * stride;
        if (m.legacy48) {
            auto *ev = static_cast<kpep_event_legacy48 *>(slot);
            ev->name = e.name;
            ev->description = e.description;
            ev->errata = nullptr;
            ev->alias = e.alias;
            ev->fallback = e.fallback;
            ev->mask = e.mask;
            ev->number = static_cast<uint8_t>(e.number);
            ev->umask = 0;
            ev->is_fixed = e.fixed >= 0 ? 1 : 0;
        } else {
            auto *ev = static_cast<kpep_event *>(slot);
            ev->name = e.name;
            ev->description = e.description;
            ev->errata = nullptr;
            ev->alias = e.alias;
            ev->fallback = e.fallback;
            ev->mask = e.mask;
            ev->number = e.number;
            ev->umask = 0;
            ev->flags = e.fixed >= 0 ? 1 : 0;
        }
        if (e.fixed >= 0 && e.fixed < static_cast<int>(kFixedCount)) fixed[e.fixed] = slot;
        if (e.alias != nullptr) ++aliases;
    }
    const char *cpu_id = intern(cpu_id_string(m.cpufamily));
    // The fields both layouts share (the legacy db is the current one cut at offset 144).
    auto fill = [&](auto *db, auto *event_arr) {
        using Event = std::remove_pointer_t<decltype(event_arr)>;
        db->name = m.db_name;
        db->cpu_id = cpu_id;
        db->marketing_name = m.marketing;
        db->event_arr = event_arr;
        db->fixed_event_arr = reinterpret_cast<Event **>(fixed);
        db->event_count = n;
        db->alias_count = aliases;
        db->fixed_counter_count = kFixedCount;
        db->config_counter_count = kConfigCount;
        db->power_counter_count = kPowerCount;
        db->archtecture = KPEP_ARCH_ARM64;
        db->fixed_counter_bits = kFixedBits;
        db->config_counter_bits = kConfigBits;
        db->power_counter_bits = kPowerBits;
    };
    if (m.legacy48) {
        fill(static_cast<kpep_db_legacy144 *>(dbmem), reinterpret_cast<kpep_event_legacy48 *>(events));
    } else {
        auto *db = static_cast<kpep_db *>(dbmem);
        fill(db, reinterpret_cast<kpep_event *>(events));
        db->create_flags = has_flags ? flags : 0;
        db->is_internal = 0;
        db->internal_known = 0;
    }
    DbMeta meta;
    meta.machine = m;
    meta.legacy = m.legacy48;
    meta.events = events;
    meta.count = n;
    meta.stride = stride;
    {
        Lock lock(d.mu);
        d.dbs.emplace(dbmem, meta);
    }
    *db_ptr = static_cast<kpep_db *>(dbmem);
    return KPEP_ERR_NONE;
}

// Fields read through the common prefix of both kpep_db layouts.
const kpep_db_legacy144 *prefix(const kpep_db *db) {
    return reinterpret_cast<const kpep_db_legacy144 *>(db);
}

// Counters a config's kpc words / counter buffer cover, in kernel order.
struct Layout {
    uint32_t counters[kCounterCount];
    uint32_t n = 0;
};
Layout kpc_layout(const kpep_config *cfg, bool include_fixed) {
    const kpep_db_legacy144 *db = prefix(cfg->db);
    Layout l;
    uint32_t bits = 0;
    if (include_fixed) bits |= db->fixed_counter_bits;
    if (cfg->classes & KPC_CLASS_CONFIGURABLE_MASK) {
        uint32_t cfg_bits = db->config_counter_bits;
        // Without kpep_config_force_counters the kernel will not hand out the power
        // counters, so they are not part of the word layout.
        if (!(cfg->force_flags & 1)) cfg_bits &= ~db->power_counter_bits;
        bits |= cfg_bits;
    }
    for (uint32_t c = 0; c < 32 && l.n < kCounterCount; ++c) {
        if (bits >> c & 1) l.counters[l.n++] = c;
    }
    return l;
}

uint32_t classes_of(uint32_t occupied, const kpep_db_legacy144 *db) {
    uint32_t classes = 0;
    if (occupied & db->fixed_counter_bits) classes |= KPC_CLASS_FIXED_MASK;
    if (occupied & db->config_counter_bits) classes |= KPC_CLASS_CONFIGURABLE_MASK;
    return classes;
}

#define DATA_ENTER(sym)                          \
    Data &d = D();                               \
    Lock lock(d.mu);                             \
    {                                            \
        int code_ = 0;                           \
        if (d.faults.hit(sym, &code_)) return code_; \
    }

}  // namespace

// ============================ kpep_db_* ============================

KPSIM_EXPORT int kpep_db_create(const char *name, kpep_db **db_ptr) {
    return create_db(name, 0, false, db_ptr);
}

#ifndef KPSIM_OMIT_KPEP_DB_CREATEX
KPSIM_EXPORT int kpep_db_createx(const char *name, uint32_t flags, kpep_db **db_ptr) {
    return create_db(name, flags, true, db_ptr);
}
#endif

KPSIM_EXPORT void kpep_db_free(kpep_db *db) {
    if (db == nullptr) return;
    Data &d = D();
    Lock lock(d.mu);
    DbMeta &m = d.db_meta(db, "kpep_db_free");
    std::free(m.events);
    std::free(prefix(db)->fixed_event_arr);
    d.dbs.erase(db);
    std::free(db);
}

KPSIM_EXPORT int kpep_db_name(kpep_db *db, const char **name) {
    DATA_ENTER("kpep_db_name");
    if (db == nullptr || name == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    (void)d.db_meta(db, "kpep_db_name");
    // darwin-kperf's disassembly: kpep_db_name returns marketing_name ("Apple A14/M1"),
    // while the struct's name field keeps the short name ("a14"). Strict default.
    const kpep_db_legacy144 *p = prefix(db);
    *name = (d.db_name_short || p->marketing_name == nullptr) ? p->name : p->marketing_name;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_db_aliases_count(kpep_db *db, size_t *count) {
    DATA_ENTER("kpep_db_aliases_count");
    if (db == nullptr || count == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    (void)d.db_meta(db, "kpep_db_aliases_count");
    *count = prefix(db)->alias_count;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_db_aliases(kpep_db *db, const char **buf, size_t buf_size) {
    DATA_ENTER("kpep_db_aliases");
    if (db == nullptr || buf == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    DbMeta &m = d.db_meta(db, "kpep_db_aliases");
    size_t need = prefix(db)->alias_count;
    if (buf_size < need * sizeof(const char *)) return KPEP_ERR_BUFFER_TOO_SMALL;
    size_t out = 0;
    for (size_t i = 0; i < m.count && out < need; ++i) {
        auto ev = reinterpret_cast<const kpep_event *>(m.events + i * m.stride);
        if (ev->alias != nullptr) buf[out++] = ev->alias;  // alias at offset 24 in both layouts
    }
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_db_counters_count(kpep_db *db, uint8_t classes, size_t *count) {
    DATA_ENTER("kpep_db_counters_count");
    if (db == nullptr || count == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    (void)d.db_meta(db, "kpep_db_counters_count");
    const kpep_db_legacy144 *p = prefix(db);
    size_t n = 0;
    if (classes & KPC_CLASS_FIXED_MASK) n += p->fixed_counter_count;
    if (classes & KPC_CLASS_CONFIGURABLE_MASK) n += p->config_counter_count;
    if (classes & KPC_CLASS_POWER_MASK) n += p->power_counter_count;
    // Strict (unknown on hardware): the framework asks the kernel, as kpc does, so the
    // configurable count is smaller until somebody forces all counters.
    if (!d.counts_from_plist) {
        with_kernel_symbol("kpsim_counter_count", [&](void *fn) {
            n = reinterpret_cast<uint32_t (*)(uint32_t)>(fn)(classes);
        });
    }
    *count = n;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_db_events_count(kpep_db *db, size_t *count) {
    DATA_ENTER("kpep_db_events_count");
    if (db == nullptr || count == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    (void)d.db_meta(db, "kpep_db_events_count");
    *count = prefix(db)->event_count;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_db_events(kpep_db *db, kpep_event **buf, size_t buf_size) {
    DATA_ENTER("kpep_db_events");
    if (db == nullptr || buf == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    DbMeta &m = d.db_meta(db, "kpep_db_events");
    if (buf_size < m.count * sizeof(kpep_event *)) return KPEP_ERR_BUFFER_TOO_SMALL;
    for (size_t i = 0; i < m.count; ++i) {
        buf[i] = reinterpret_cast<kpep_event *>(m.events + i * m.stride);
    }
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_db_event(kpep_db *db, const char *name, kpep_event **ev_ptr) {
    DATA_ENTER("kpep_db_event");
    if (db == nullptr || name == nullptr || ev_ptr == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    DbMeta &m = d.db_meta(db, "kpep_db_event");
    // The alias map is consulted first, then the event names.
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < m.count; ++i) {
            auto ev = reinterpret_cast<kpep_event *>(m.events + i * m.stride);
            const char *key = pass == 0 ? ev->alias : ev->name;
            if (key != nullptr && std::strcmp(key, name) == 0) {
                *ev_ptr = ev;
                return KPEP_ERR_NONE;
            }
        }
    }
    return KPEP_ERR_EVENT_NOT_FOUND;
}

// name, description and alias sit at offsets 0, 8 and 24 in both event layouts.
KPSIM_EXPORT int kpep_event_name(kpep_event *ev, const char **name_ptr) {
    DATA_ENTER("kpep_event_name");
    if (ev == nullptr || name_ptr == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    *name_ptr = ev->name;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_event_alias(kpep_event *ev, const char **alias_ptr) {
    DATA_ENTER("kpep_event_alias");
    if (ev == nullptr || alias_ptr == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    *alias_ptr = ev->alias;  // NULL for events without an alias
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_event_description(kpep_event *ev, const char **str_ptr) {
    DATA_ENTER("kpep_event_description");
    if (ev == nullptr || str_ptr == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    *str_ptr = ev->description;  // NULL for the fixed events
    return KPEP_ERR_NONE;
}

// ============================ kpep_config_* ============================

KPSIM_EXPORT int kpep_config_create(kpep_db *db, kpep_config **cfg_ptr) {
    DATA_ENTER("kpep_config_create");
    if (db == nullptr || cfg_ptr == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    (void)d.db_meta(db, "kpep_config_create");
    const kpep_db_legacy144 *p = prefix(db);
    size_t n = p->fixed_counter_count + p->config_counter_count;
    auto *cfg = static_cast<kpep_config *>(std::calloc(1, sizeof(kpep_config)));
    auto **events = static_cast<kpep_event **>(std::calloc(n, sizeof(kpep_event *)));
    auto *event_map = static_cast<size_t *>(std::calloc(n, sizeof(size_t)));
    auto *event_indices = static_cast<size_t *>(std::calloc(n, sizeof(size_t)));
    auto *flags = static_cast<uint32_t *>(std::calloc(n, sizeof(uint32_t)));
    auto *periods = static_cast<uint64_t *>(std::calloc(n, sizeof(uint64_t)));
    if (!cfg || !events || !event_map || !event_indices || !flags || !periods) {
        std::free(cfg);
        std::free(events);
        std::free(event_map);
        std::free(event_indices);
        std::free(flags);
        std::free(periods);
        return KPEP_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n; ++i) event_indices[i] = SIZE_MAX;
    cfg->db = db;
    cfg->events = events;
    cfg->event_map = event_map;
    cfg->event_indices = event_indices;
    cfg->flags = flags;
    cfg->kpc_periods = periods;
    cfg->event_count = 0;
    cfg->counter_count = n;
    d.configs.insert(cfg);
    *cfg_ptr = cfg;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT void kpep_config_free(kpep_config *cfg) {
    if (cfg == nullptr) return;
    Data &d = D();
    Lock lock(d.mu);
    if (d.configs.count(cfg) == 0) {
        std::fprintf(stderr, "kperfdata_sim: kpep_config_free: %p is not a live kpep_config\n",
                     static_cast<void *>(cfg));
        std::abort();
    }
    d.configs.erase(cfg);
    std::free(cfg->events);
    std::free(cfg->event_map);
    std::free(cfg->event_indices);
    std::free(cfg->flags);
    std::free(cfg->kpc_periods);
    std::free(cfg);
}

KPSIM_EXPORT int kpep_config_force_counters(kpep_config *cfg) {
    DATA_ENTER("kpep_config_force_counters");
    if (cfg == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    d.check_config(cfg, "kpep_config_force_counters");
    cfg->force_flags |= 1;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_config_add_event(kpep_config *cfg, kpep_event **ev_ptr, uint32_t flag,
                                       uint32_t *err) {
    DATA_ENTER("kpep_config_add_event");
    if (cfg == nullptr || ev_ptr == nullptr || *ev_ptr == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    d.check_config(cfg, "kpep_config_add_event");
    DbMeta &m = d.db_meta(cfg->db, "kpep_config_add_event");
    // Stricter than needed on macOS: an event from another database is refused.
    if (!event_in_db(m, *ev_ptr)) return KPEP_ERR_INVALID_ARGUMENT;
    const kpep_db_legacy144 *db = prefix(cfg->db);
    EvView ev = view(m, *ev_ptr);
    // The flag's only documented values are 0 (all modes) and 1 (user space only). A fixed
    // counter always counts every mode (the kernel forces its enables), so "user only" is
    // something it cannot do. What kpep does then is unknown: strictly, both are refused;
    // KPSIM_KPEP_FLAGS=lenient accepts them and ignores what cannot be done.
    if (!d.lenient_flags && (flag > 1 || (ev.fixed && flag == 1))) return KPEP_ERR_INVALID_ARGUMENT;
    uint32_t allowed;
    if (ev.fixed) {
        allowed = ev.mask & db->fixed_counter_bits;
    } else {
        // No counters_mask in the plist: any configurable counter.
        allowed = (ev.mask ? ev.mask : db->config_counter_bits) & db->config_counter_bits;
    }
    const bool forced = cfg->force_flags & 1;
    const uint32_t free_bits = allowed & ~cfg->occupied_counters;
    uint32_t usable = free_bits;
    if (!ev.fixed && !forced) usable &= ~db->power_counter_bits;
    if (usable == 0) {
        if (!forced && (free_bits & db->power_counter_bits)) return KPEP_ERR_COUNTERS_NOT_FORCED;
        if (err != nullptr) {
            uint32_t bitmap = 0;
            uint32_t taken = allowed & cfg->occupied_counters;
            for (uint32_t c = 0; c < cfg->counter_count; ++c) {
                if ((taken >> c & 1) && cfg->event_indices[c] != SIZE_MAX && cfg->event_indices[c] < 32) {
                    bitmap |= 1u << cfg->event_indices[c];
                }
            }
            *err = bitmap;
        }
        return KPEP_ERR_CONFLICTING_EVENTS;
    }
    // Greedy first fit in add order: the lowest free counter the mask allows.
    const uint32_t slot = static_cast<uint32_t>(__builtin_ctz(usable));
    const size_t idx = cfg->event_count;
    cfg->events[idx] = *ev_ptr;
    cfg->event_map[idx] = slot;
    cfg->event_indices[slot] = idx;
    cfg->flags[slot] = flag;
    cfg->occupied_counters |= 1u << slot;
    cfg->classes = classes_of(cfg->occupied_counters, db);
    cfg->event_count = idx + 1;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_config_remove_event(kpep_config *cfg, size_t idx) {
    DATA_ENTER("kpep_config_remove_event");
    if (cfg == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    d.check_config(cfg, "kpep_config_remove_event");
    if (idx >= cfg->event_count) return KPEP_ERR_INVALID_ARGUMENT;
    const size_t slot = cfg->event_map[idx];
    cfg->occupied_counters &= ~(1u << slot);
    cfg->event_indices[slot] = SIZE_MAX;
    cfg->flags[slot] = 0;
    for (size_t j = idx + 1; j < cfg->event_count; ++j) {
        cfg->events[j - 1] = cfg->events[j];
        cfg->event_map[j - 1] = cfg->event_map[j];
        cfg->event_indices[cfg->event_map[j - 1]] = j - 1;
    }
    cfg->event_count -= 1;
    cfg->events[cfg->event_count] = nullptr;
    cfg->event_map[cfg->event_count] = 0;
    cfg->classes = classes_of(cfg->occupied_counters, prefix(cfg->db));
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_config_events_count(kpep_config *cfg, size_t *count_ptr) {
    DATA_ENTER("kpep_config_events_count");
    if (cfg == nullptr || count_ptr == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    d.check_config(cfg, "kpep_config_events_count");
    *count_ptr = cfg->event_count;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_config_events(kpep_config *cfg, kpep_event **buf, size_t buf_size) {
    DATA_ENTER("kpep_config_events");
    if (cfg == nullptr || buf == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    d.check_config(cfg, "kpep_config_events");
    if (buf_size < cfg->event_count * sizeof(kpep_event *)) return KPEP_ERR_BUFFER_TOO_SMALL;
    for (size_t i = 0; i < cfg->event_count; ++i) buf[i] = cfg->events[i];
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_config_kpc_classes(kpep_config *cfg, uint32_t *classes_ptr) {
    DATA_ENTER("kpep_config_kpc_classes");
    if (cfg == nullptr || classes_ptr == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    d.check_config(cfg, "kpep_config_kpc_classes");
    *classes_ptr = cfg->classes;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_config_kpc_count(kpep_config *cfg, size_t *count_ptr) {
    DATA_ENTER("kpep_config_kpc_count");
    if (cfg == nullptr || count_ptr == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    d.check_config(cfg, "kpep_config_kpc_count");
    // One word per configurable counter the kernel will map (fixed counters take none).
    *count_ptr = kpc_layout(cfg, false).n;
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_config_kpc(kpep_config *cfg, kpc_config_t *buf, size_t buf_size) {
    DATA_ENTER("kpep_config_kpc");
    if (cfg == nullptr || buf == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    d.check_config(cfg, "kpep_config_kpc");
    DbMeta &m = d.db_meta(cfg->db, "kpep_config_kpc");
    Layout l = kpc_layout(cfg, false);
    if (buf_size < l.n * sizeof(kpc_config_t)) return KPEP_ERR_BUFFER_TOO_SMALL;
    for (uint32_t i = 0; i < l.n; ++i) {
        uint32_t c = l.counters[i];
        size_t idx = cfg->event_indices[c];
        if (idx == SIZE_MAX) {
            buf[i] = 0;
            continue;
        }
        kpc_config_t word = view(m, cfg->events[idx]).number;
        // flag 1 = user space only: both EL0 enables. flag 0 = all modes: no mode bits,
        // which the kernel reads as "all modes" (EL0 only on a secure kernel).
        if (cfg->flags[c] & 1) word |= CFGWORD_EL0A32EN | CFGWORD_EL0A64EN;
        buf[i] = word;
    }
    return KPEP_ERR_NONE;
}

KPSIM_EXPORT int kpep_config_kpc_map(kpep_config *cfg, size_t *buf, size_t buf_size) {
    DATA_ENTER("kpep_config_kpc_map");
    if (cfg == nullptr || buf == nullptr) return KPEP_ERR_INVALID_ARGUMENT;
    d.check_config(cfg, "kpep_config_kpc_map");
    if (buf_size < cfg->event_count * sizeof(size_t)) return KPEP_ERR_BUFFER_TOO_SMALL;
    // Index of each event's counter in the kernel's counter buffer for the config's
    // classes: absolute when the fixed class is in use; without it, class-relative by
    // default or absolute (KPSIM_KPC_MAP=absolute): nobody has checked which on hardware.
    Layout l = kpc_layout(cfg, (cfg->classes & KPC_CLASS_FIXED_MASK) != 0 || d.map_absolute);
    for (size_t i = 0; i < cfg->event_count; ++i) {
        size_t pos = SIZE_MAX;
        for (uint32_t j = 0; j < l.n; ++j) {
            if (l.counters[j] == cfg->event_map[i]) pos = j;
        }
        buf[i] = pos;
    }
    return KPEP_ERR_NONE;
}

// ============================ kpsim_data_* controls ============================

KPSIM_EXPORT int kpsim_data_set_db(const char *name) {
    Machine m;
    if (name == nullptr || !resolve_name(name, true, &m)) return -1;
    {
        Data &d = D();
        Lock lock(d.mu);
        d.chosen = name;
    }
    kernel_set_machine(name);
    return 0;
}

KPSIM_EXPORT int kpsim_data_fail(const char *symbol, int nth, int code) {
    if (symbol == nullptr || nth < 1 || !known_symbol(symbol)) return -1;
    Data &d = D();
    Lock lock(d.mu);
    d.faults.add(symbol, nth, code);
    return 0;
}

KPSIM_EXPORT void kpsim_data_clear_faults(void) {
    Data &d = D();
    Lock lock(d.mu);
    d.faults.clear();
}

KPSIM_EXPORT size_t kpsim_data_live_dbs(void) {
    Data &d = D();
    Lock lock(d.mu);
    return d.dbs.size();
}

KPSIM_EXPORT size_t kpsim_data_live_configs(void) {
    Data &d = D();
    Lock lock(d.mu);
    return d.configs.size();
}

KPSIM_EXPORT void kpsim_data_reset(void) {
    std::string chosen;
    {
        Data &d = D();
        Lock lock(d.mu);
        d.reset_locked();
        chosen = d.chosen;
    }
    kernel_set_machine(chosen);
}
