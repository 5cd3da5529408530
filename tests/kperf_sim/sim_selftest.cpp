// Tests of the kperf simulator itself: layouts, databases vs the CSV, placement, kernel
// rules, per-thread counters, fault injection, reset. Links both simulator libraries.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "apple_abi.h"
#include "kpsim.h"

// Apple's C signatures (apple-kperf.md §2.2 / §2.3).
extern "C" {
int kpc_cpu_string(char *buf, size_t buf_size);
uint32_t kpc_pmu_version(void);
uint32_t kpc_get_counting(void);
int kpc_set_counting(uint32_t classes);
uint32_t kpc_get_thread_counting(void);
int kpc_set_thread_counting(uint32_t classes);
uint32_t kpc_get_config_count(uint32_t classes);
uint32_t kpc_get_counter_count(uint32_t classes);
int kpc_get_config(uint32_t classes, kpc_config_t *config);
int kpc_set_config(uint32_t classes, kpc_config_t *config);
int kpc_get_cpu_counters(bool all_cpus, uint32_t classes, int *curcpu, uint64_t *buf);
int kpc_get_thread_counters(uint32_t tid, uint32_t buf_count, uint64_t *buf);
int kpc_force_all_ctrs_set(int val);
int kpc_force_all_ctrs_get(int *val_out);
int kperf_action_count_set(uint32_t count);
int kperf_action_count_get(uint32_t *count);
int kperf_action_samplers_set(uint32_t actionid, uint32_t sample);
int kperf_action_samplers_get(uint32_t actionid, uint32_t *sample);
int kperf_action_filter_set_by_task(uint32_t actionid, int32_t port);
int kperf_action_filter_set_by_pid(uint32_t actionid, int32_t pid);
int kperf_timer_count_set(uint32_t count);
int kperf_timer_count_get(uint32_t *count);
int kperf_timer_period_set(uint32_t actionid, uint64_t tick);
int kperf_timer_period_get(uint32_t actionid, uint64_t *tick);
int kperf_timer_action_set(uint32_t actionid, uint32_t timerid);
int kperf_timer_action_get(uint32_t actionid, uint32_t *timerid);
int kperf_timer_pet_set(uint32_t timerid);
int kperf_timer_pet_get(uint32_t *timerid);
int kperf_sample_set(uint32_t enabled);
int kperf_sample_get(uint32_t *enabled);
int kperf_reset(void);
uint64_t kperf_ns_to_ticks(uint64_t ns);
uint64_t kperf_ticks_to_ns(uint64_t ticks);
uint64_t kperf_tick_frequency(void);

int kpep_config_create(kpep_db *db, kpep_config **cfg_ptr);
void kpep_config_free(kpep_config *cfg);
int kpep_config_add_event(kpep_config *cfg, kpep_event **ev_ptr, uint32_t flag, uint32_t *err);
int kpep_config_remove_event(kpep_config *cfg, size_t idx);
int kpep_config_force_counters(kpep_config *cfg);
int kpep_config_events_count(kpep_config *cfg, size_t *count_ptr);
int kpep_config_events(kpep_config *cfg, kpep_event **buf, size_t buf_size);
int kpep_config_kpc(kpep_config *cfg, kpc_config_t *buf, size_t buf_size);
int kpep_config_kpc_count(kpep_config *cfg, size_t *count_ptr);
int kpep_config_kpc_classes(kpep_config *cfg, uint32_t *classes_ptr);
int kpep_config_kpc_map(kpep_config *cfg, size_t *buf, size_t buf_size);
int kpep_db_create(const char *name, kpep_db **db_ptr);
int kpep_db_createx(const char *name, uint32_t flags, kpep_db **db_ptr);
void kpep_db_free(kpep_db *db);
int kpep_db_name(kpep_db *db, const char **name);
int kpep_db_aliases_count(kpep_db *db, size_t *count);
int kpep_db_aliases(kpep_db *db, const char **buf, size_t buf_size);
int kpep_db_counters_count(kpep_db *db, uint8_t classes, size_t *count);
int kpep_db_events_count(kpep_db *db, size_t *count);
int kpep_db_events(kpep_db *db, kpep_event **buf, size_t buf_size);
int kpep_db_event(kpep_db *db, const char *name, kpep_event **ev_ptr);
int kpep_event_name(kpep_event *ev, const char **name_ptr);
int kpep_event_alias(kpep_event *ev, const char **alias_ptr);
int kpep_event_description(kpep_event *ev, const char **str_ptr);
}

namespace {

constexpr uint32_t FIX = KPC_CLASS_FIXED_MASK;
constexpr uint32_t CFG = KPC_CLASS_CONFIGURABLE_MASK;

void clear_env() {
    for (const char *v : {"KPSIM_ROOT", "KPSIM_PMU_BUSY", "KPSIM_FORCE_HELD", "KPSIM_DENY",
                          "KPSIM_FAIL", "KPSIM_DB", "KPSIM_STRICT_FIRST_READ", "KPSIM_DATA_FAIL",
                          "KPSIM_LAZY_BUFFER", "KPSIM_ALLOW_LIST", "KPSIM_APPLY_CONFIG",
                          "KPSIM_READ_KERNEL_INSTRUCTIONS", "KPSIM_ZERO", "KPSIM_DB_NAME_API",
                          "KPSIM_KPC_MAP", "KPSIM_KPEP_FLAGS", "KPSIM_COUNT_BEFORE_FORCE",
                          "KPSIM_KPEP_COUNTS"}) {
        unsetenv(v);
    }
}

class Sim : public ::testing::Test {
protected:
    void SetUp() override {
        clear_env();
        kpsim_reset();
        kpsim_data_reset();
        dbs_before_ = kpsim_data_live_dbs();
        cfgs_before_ = kpsim_data_live_configs();
    }
    void TearDown() override {
        for (kpep_config *c : cfgs_) kpep_config_free(c);
        for (kpep_db *d : dbs_) kpep_db_free(d);
        EXPECT_EQ(kpsim_data_live_dbs(), dbs_before_);
        EXPECT_EQ(kpsim_data_live_configs(), cfgs_before_);
        clear_env();
        kpsim_reset();
        kpsim_data_reset();
    }
    kpep_db *db(const char *name) {
        kpep_db *d = nullptr;
        int rc = kpep_db_create(name, &d);
        EXPECT_EQ(rc, 0) << (name ? name : "(null)");
        if (d) dbs_.push_back(d);
        return d;
    }
    kpep_config *config(kpep_db *d, bool force) {
        kpep_config *c = nullptr;
        EXPECT_EQ(kpep_config_create(d, &c), 0);
        if (c) {
            cfgs_.push_back(c);
            if (force) {
                EXPECT_EQ(kpep_config_force_counters(c), 0);
            }
        }
        return c;
    }
    static kpep_event *event(kpep_db *d, const char *name) {
        kpep_event *e = nullptr;
        EXPECT_EQ(kpep_db_event(d, name, &e), 0) << name;
        return e;
    }
    static int add(kpep_config *c, kpep_db *d, const char *name, uint32_t *err = nullptr) {
        kpep_event *e = event(d, name);
        return kpep_config_add_event(c, &e, 0, err);
    }
    static std::vector<kpc_config_t> words(kpep_config *c) {
        size_t n = 0;
        EXPECT_EQ(kpep_config_kpc_count(c, &n), 0);
        std::vector<kpc_config_t> w(n);
        EXPECT_EQ(kpep_config_kpc(c, w.data(), n * sizeof(kpc_config_t)), 0);
        return w;
    }
    static std::vector<size_t> map(kpep_config *c) {
        size_t n = 0;
        EXPECT_EQ(kpep_config_events_count(c, &n), 0);
        std::vector<size_t> m(n);
        EXPECT_EQ(kpep_config_kpc_map(c, m.data(), n * sizeof(size_t)), 0);
        return m;
    }
    static kpsim_kernel_state state() {
        kpsim_kernel_state s{};
        kpsim_kernel_get_state(&s);
        return s;
    }

    std::vector<kpep_db *> dbs_;
    std::vector<kpep_config *> cfgs_;
    size_t dbs_before_ = 0, cfgs_before_ = 0;
};

template <typename T>
T field(const void *base, size_t off) {
    T v;
    std::memcpy(&v, static_cast<const char *>(base) + off, sizeof v);
    return v;
}

uint64_t thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

void burn_cpu_ns(uint64_t ns) {
    uint64_t start = thread_cpu_ns();
    volatile uint64_t x = 0;
    while (thread_cpu_ns() - start < ns) {
        for (int i = 0; i < 1000; ++i) x = x + i;
    }
}

// ---------------- CSV ----------------

struct CsvGen {
    bool present = false;
    long number = -1, mask = 0, fixed = -1;
};
struct CsvRow {
    std::string name;
    CsvGen gen[4];
};

std::vector<std::string> split_csv_line(const std::string &line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cur += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

std::vector<CsvRow> load_csv() {
    std::ifstream in(KPSIM_TEST_CSV);
    std::vector<CsvRow> rows;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        auto f = split_csv_line(line);
        if (f.size() != 18) {
            ADD_FAILURE() << "bad CSV line: " << line;
            continue;
        }
        CsvRow r;
        r.name = f[0];
        for (int g = 0; g < 4; ++g) {
            r.gen[g].present = f[1 + g * 4] == "1";
            r.gen[g].number = f[2 + g * 4].empty() ? -1 : std::stol(f[2 + g * 4]);
            r.gen[g].mask = f[3 + g * 4].empty() ? 0 : std::stol(f[3 + g * 4]);
            r.gen[g].fixed = f[4 + g * 4].empty() ? -1 : std::stol(f[4 + g * 4]);
        }
        rows.push_back(r);
    }
    return rows;
}

// ================= layouts =================

TEST_F(Sim, DbAndEventLayoutAreApples) {
    kpep_db *d = db("a14");
    ASSERT_NE(d, nullptr);
    const char *name = nullptr;
    ASSERT_EQ(kpep_db_name(d, &name), 0);
    // kpep_db_name returns the marketing name; the name field keeps the short one.
    EXPECT_STREQ(name, "Apple A14/M1");
    EXPECT_STREQ(field<const char *>(d, 0), "a14");
    EXPECT_EQ(field<const char *>(d, 16), name);
    EXPECT_STREQ(field<const char *>(d, 8), "cpu_100000c_2_1b588bb3");
    EXPECT_STREQ(field<const char *>(d, 16), "Apple A14/M1");
    EXPECT_EQ(field<size_t>(d, 88), 60u);      // event_count
    EXPECT_EQ(field<size_t>(d, 96), 2u);       // alias_count
    EXPECT_EQ(field<size_t>(d, 104), 2u);      // fixed_counter_count
    EXPECT_EQ(field<size_t>(d, 112), 8u);      // config_counter_count
    EXPECT_EQ(field<size_t>(d, 120), 3u);      // power_counter_count
    EXPECT_EQ(field<uint32_t>(d, 128), 3u);    // ARM64
    EXPECT_EQ(field<uint32_t>(d, 132), 0x3u);
    EXPECT_EQ(field<uint32_t>(d, 136), 0x3FCu);
    EXPECT_EQ(field<uint32_t>(d, 140), 0xE0u);
    EXPECT_EQ(field<uint32_t>(d, 144), 0u);    // create_flags

    size_t n = 0;
    ASSERT_EQ(kpep_db_events_count(d, &n), 0);
    std::vector<kpep_event *> evs(n);
    ASSERT_EQ(kpep_db_events(d, evs.data(), n * sizeof(void *)), 0);
    const char *arr = field<const char *>(d, 40);
    for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(reinterpret_cast<const char *>(evs[i]), arr + i * 56) << i;  // contiguous, stride 56
    }
    // fixed_event_arr
    auto fixed = field<kpep_event **>(d, 48);
    EXPECT_STREQ(fixed[0]->name, "FIXED_CYCLES");
    EXPECT_STREQ(fixed[1]->name, "FIXED_INSTRUCTIONS");
    EXPECT_EQ(field<uint8_t>(fixed[0], 48) & 1, 1);
    EXPECT_STREQ(field<const char *>(fixed[0], 24), "Cycles");
    EXPECT_STREQ(field<const char *>(fixed[1], 24), "Instructions");
    EXPECT_STREQ(field<const char *>(fixed[1], 32), "INST_ALL");
    EXPECT_EQ(field<const char *>(fixed[0], 8), nullptr);  // no description in the plist
    EXPECT_EQ(field<uint32_t>(fixed[0], 40), 1u);
    EXPECT_EQ(field<uint32_t>(fixed[1], 40), 2u);
    kpep_event *inst_all = event(d, "INST_ALL");
    EXPECT_EQ(field<uint16_t>(inst_all, 44), 140);
    EXPECT_EQ(field<uint32_t>(inst_all, 40), 128u);
    EXPECT_EQ(field<uint8_t>(inst_all, 48), 0);
    EXPECT_EQ(field<const char *>(inst_all, 16), nullptr);  // errata
}

TEST_F(Sim, Legacy48LayoutDatabase) {
    kpep_db *d = db("a14-legacy48");
    ASSERT_NE(d, nullptr);
    EXPECT_STREQ(field<const char *>(d, 0), "a14");  // the plist still says a14
    size_t n = 0;
    ASSERT_EQ(kpep_db_events_count(d, &n), 0);
    EXPECT_EQ(n, 60u);
    std::vector<kpep_event *> evs(n);
    ASSERT_EQ(kpep_db_events(d, evs.data(), n * sizeof(void *)), 0);
    for (size_t i = 1; i < n; ++i) {
        EXPECT_EQ(reinterpret_cast<char *>(evs[i]) - reinterpret_cast<char *>(evs[i - 1]), 48);
    }
    kpep_event *inst_all = event(d, "INST_ALL");
    EXPECT_EQ(field<uint8_t>(inst_all, 44), 140);  // u8 number
    EXPECT_EQ(field<uint8_t>(inst_all, 47), 0);
    kpep_event *cyc = event(d, "Cycles");
    const char *nm = nullptr;
    ASSERT_EQ(kpep_event_name(cyc, &nm), 0);
    EXPECT_STREQ(nm, "FIXED_CYCLES");
    EXPECT_EQ(field<uint8_t>(cyc, 47), 1);  // is_fixed
    // Placement still works on the old layout.
    kpep_config *c = config(d, true);
    EXPECT_EQ(add(c, d, "INST_ALL"), 0);
    EXPECT_EQ(add(c, d, "FIXED_CYCLES"), 0);
    auto w = words(c);
    ASSERT_EQ(w.size(), 8u);
    EXPECT_EQ(w[5], 140u);
    EXPECT_EQ(map(c), (std::vector<size_t>{7, 0}));
}

TEST_F(Sim, ConfigStructLayout) {
    kpep_db *d = db("as4");
    kpep_config *c = config(d, true);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(field<kpep_db *>(c, 0), d);
    EXPECT_EQ(field<size_t>(c, 56), 10u);  // counter_count
    EXPECT_EQ(add(c, d, "FIXED_INSTRUCTIONS"), 0);
    EXPECT_EQ(add(c, d, "INST_ALL"), 0);  // as4: mask 252, lowest = counter 2
    EXPECT_EQ(field<size_t>(c, 48), 2u);  // event_count
    EXPECT_EQ(field<uint32_t>(c, 64), FIX | CFG);
    EXPECT_EQ(field<uint32_t>(c, 68), (1u << 1) | (1u << 2));
    EXPECT_EQ(field<uint8_t>(c, 72) & 1, 1);
    auto event_map = field<size_t *>(c, 16);
    EXPECT_EQ(event_map[0], 1u);
    EXPECT_EQ(event_map[1], 2u);
}

// ================= databases vs CSV =================

TEST_F(Sim, DatabasesMatchCsv) {
    const auto rows = load_csv();
    ASSERT_EQ(rows.size(), 104u);
    const std::map<std::string, int> dbgen = {
        {"a14", 0}, {"a15", 1}, {"a16", 2}, {"as1", 2}, {"as2", 2}, {"as3", 2},
        {"as4", 3}, {"as4-1", 3}, {"as4-2", 3}, {"as5", 3}, {"as5-1", 3}, {"as5-2", 3}};
    const size_t expected_counts[4] = {60, 60, 66, 103};
    for (const auto &kv : dbgen) {
        SCOPED_TRACE(kv.first);
        kpep_db *d = db(kv.first.c_str());
        ASSERT_NE(d, nullptr);
        const char *name = nullptr;
        ASSERT_EQ(kpep_db_name(d, &name), 0);
        EXPECT_EQ(std::string(name), std::string(field<const char *>(d, 16)));
        EXPECT_EQ(std::string(field<const char *>(d, 0)), kv.first);
        size_t n = 0;
        ASSERT_EQ(kpep_db_events_count(d, &n), 0);
        size_t present = 0;
        for (const auto &r : rows) {
            const CsvGen &g = r.gen[kv.second];
            kpep_event *e = nullptr;
            int rc = kpep_db_event(d, r.name.c_str(), &e);
            if (!g.present) {
                EXPECT_EQ(rc, KPEP_ERR_EVENT_NOT_FOUND) << r.name;
                continue;
            }
            ++present;
            ASSERT_EQ(rc, 0) << r.name;
            EXPECT_EQ(e->mask, static_cast<uint32_t>(g.mask)) << r.name;
            EXPECT_EQ(e->number, g.number < 0 ? 0 : g.number) << r.name;
            EXPECT_EQ(e->flags & 1, g.fixed >= 0 ? 1 : 0) << r.name;
        }
        EXPECT_EQ(n, present);
        EXPECT_EQ(n, expected_counts[kv.second]);
    }
}

TEST_F(Sim, SelectorSpotChecks) {
    kpep_db *m1 = db("a14");
    kpep_db *m4 = db("as4");
    kpep_db *m5 = db("as5-1");
    kpep_db *m3 = db("as3");
    EXPECT_EQ(event(m1, "CORE_ACTIVE_CYCLE")->number, 2);
    EXPECT_EQ(event(m4, "CORE_ACTIVE_CYCLE")->number, 17);
    EXPECT_EQ(event(m1, "INST_ALL")->mask, 128u);
    EXPECT_EQ(event(m4, "INST_ALL")->mask, 252u);
    EXPECT_EQ(event(m5, "L1I_CACHE_MISS_DEMAND")->number, 16390);
    EXPECT_EQ(event(m3, "ATOMIC_OR_EXCLUSIVE_FAIL")->number, 1460);
    EXPECT_EQ(event(m1, "ATOMIC_OR_EXCLUSIVE_FAIL")->mask, 0u);  // absent mask stays 0
    kpep_event *e = nullptr;
    EXPECT_EQ(kpep_db_event(m1, "INST_BRANCH_COND", &e), KPEP_ERR_EVENT_NOT_FOUND);
    EXPECT_EQ(kpep_db_event(m4, "SCHEDULE_UOP", &e), KPEP_ERR_EVENT_NOT_FOUND);
    const char *desc = nullptr;
    ASSERT_EQ(kpep_event_description(event(m1, "INST_ALL"), &desc), 0);
    EXPECT_STREQ(desc, "All retired instructions");
    EXPECT_STREQ(field<const char *>(m4, 16), "Apple silicon");
}

TEST_F(Sim, DatabaseNamesAndLookups) {
    kpep_db *d = nullptr;
    EXPECT_EQ(kpep_db_create("haswell", &d), KPEP_ERR_DB_NOT_FOUND);
    EXPECT_EQ(kpep_db_create("", &d), KPEP_ERR_DB_NOT_FOUND);
    EXPECT_EQ(kpep_db_create("cpu_100000c_2_12345678", &d), KPEP_ERR_DB_NOT_FOUND);
    EXPECT_EQ(kpep_db_create("a14", nullptr), KPEP_ERR_INVALID_ARGUMENT);

    kpep_db *by_cpu = db("cpu_100000c_2_72015832");  // M3 Max symlink -> as3
    EXPECT_STREQ(field<const char *>(by_cpu, 0), "as3");

    kpep_db *unknown = db("zz9");
    EXPECT_STREQ(field<const char *>(unknown, 0), "zz9");
    size_t n = 0;
    ASSERT_EQ(kpep_db_events_count(unknown, &n), 0);
    EXPECT_GE(n, 3u);
    kpep_event *cyc = event(unknown, "Cycles");
    EXPECT_STREQ(cyc->name, "FIXED_CYCLES");

    kpep_db *m1 = db(nullptr);  // default machine: a14
    EXPECT_STREQ(field<const char *>(m1, 0), "a14");
    size_t na = 0;
    ASSERT_EQ(kpep_db_aliases_count(m1, &na), 0);
    ASSERT_EQ(na, 2u);
    const char *aliases[2] = {};
    EXPECT_EQ(kpep_db_aliases(m1, aliases, sizeof(aliases) - 1), KPEP_ERR_BUFFER_TOO_SMALL);
    ASSERT_EQ(kpep_db_aliases(m1, aliases, sizeof(aliases)), 0);
    std::set<std::string> as{aliases[0], aliases[1]};
    EXPECT_EQ(as, (std::set<std::string>{"Cycles", "Instructions"}));
    kpep_event *e = nullptr;
    EXPECT_EQ(kpep_db_event(m1, "NO_SUCH_EVENT", &e), KPEP_ERR_EVENT_NOT_FOUND);
    std::vector<kpep_event *> evs(60);
    EXPECT_EQ(kpep_db_events(m1, evs.data(), 59 * sizeof(void *)), KPEP_ERR_BUFFER_TOO_SMALL);
    size_t cnt = 0;
    EXPECT_EQ(kpep_db_counters_count(m1, 1, &cnt), 0);
    EXPECT_EQ(cnt, 2u);
    EXPECT_EQ(kpep_db_counters_count(m1, 2, &cnt), 0);
    EXPECT_EQ(cnt, 5u);  // strictly as the kernel reports: nobody forced the counters
    const char *alias = reinterpret_cast<const char *>(1);
    ASSERT_EQ(kpep_event_alias(event(m1, "INST_ALL"), &alias), 0);
    EXPECT_EQ(alias, nullptr);
}

TEST_F(Sim, CreatexFlags) {
    kpep_db *d = nullptr;
    ASSERT_EQ(kpep_db_createx(nullptr, KPEP_DB_FLAG_PUBLIC_ONLY, &d), 0);
    dbs_.push_back(d);
    EXPECT_EQ(field<uint32_t>(d, 144), KPEP_DB_FLAG_PUBLIC_ONLY);
    kpep_db *d2 = nullptr;
    EXPECT_EQ(kpep_db_createx(nullptr, KPEP_DB_FLAG_INTERNAL_ONLY, &d2), KPEP_ERR_DB_NOT_FOUND);
    EXPECT_EQ(kpep_db_createx(nullptr, 0x100, &d2), KPEP_ERR_INVALID_ARGUMENT);
}

TEST_F(Sim, SymbolVariantsOmitOneSymbol) {
    void *k = dlopen(KPSIM_TEST_KPERF_MISSING_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(k, nullptr) << dlerror();
    EXPECT_EQ(dlsym(k, "kpc_get_thread_counters"), nullptr);
    EXPECT_NE(dlsym(k, "kpc_get_counting"), nullptr);
    EXPECT_NE(dlsym(k, "kpc_force_all_ctrs_get"), nullptr);
    dlclose(k);
    void *d = dlopen(KPSIM_TEST_KPERFDATA_NOCREATEX_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(d, nullptr) << dlerror();
    EXPECT_EQ(dlsym(d, "kpep_db_createx"), nullptr);
    EXPECT_NE(dlsym(d, "kpep_db_create"), nullptr);
    dlclose(d);
    void *full = dlopen(KPSIM_TEST_KPERF_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(full, nullptr);
    EXPECT_NE(dlsym(full, "kpc_get_thread_counters"), nullptr);
    EXPECT_EQ(dlsym(full, "_ZN6kpsim12resolve_nameEPKcbPNS_7MachineE"), nullptr);  // hidden
    dlclose(full);
}

// ================= placement =================

TEST_F(Sim, GreedyPlacementAndConflictBitmap) {
    kpep_db *d = db("a14");
    kpep_config *c = config(d, true);
    EXPECT_EQ(add(c, d, "INST_ALL"), 0);                 // mask 0x80 -> 7
    EXPECT_EQ(add(c, d, "INST_BRANCH"), 0);              // mask 0xE0 -> 5
    EXPECT_EQ(add(c, d, "BRANCH_MISPRED_NONSPEC"), 0);   // -> 6
    uint32_t err = 0xdeadbeef;
    EXPECT_EQ(add(c, d, "L1D_CACHE_MISS_LD_NONSPEC", &err), KPEP_ERR_CONFLICTING_EVENTS);
    EXPECT_EQ(err, 0x7u);  // events 0, 1, 2 hold counters 5-7
    err = 0;
    EXPECT_EQ(add(c, d, "INST_INT_ALU", &err), KPEP_ERR_CONFLICTING_EVENTS);  // mask 0x80
    EXPECT_EQ(err, 0x1u);
    EXPECT_EQ(add(c, d, "CORE_ACTIVE_CYCLE"), 0);        // no mask -> lowest free = 2
    EXPECT_EQ(map(c), (std::vector<size_t>{5, 3, 4, 0}));  // class-relative (no fixed)
    auto w = words(c);
    ASSERT_EQ(w.size(), 8u);
    EXPECT_EQ(w, (std::vector<kpc_config_t>{2, 0, 0, 141, 203, 140, 0, 0}));
    uint32_t classes = 0;
    EXPECT_EQ(kpep_config_kpc_classes(c, &classes), 0);
    EXPECT_EQ(classes, CFG);
    std::vector<kpc_config_t> small(7);
    EXPECT_EQ(kpep_config_kpc(c, small.data(), 7 * sizeof(kpc_config_t)), KPEP_ERR_BUFFER_TOO_SMALL);
    size_t m3[3];
    EXPECT_EQ(kpep_config_kpc_map(c, m3, sizeof m3), KPEP_ERR_BUFFER_TOO_SMALL);
}

TEST_F(Sim, PlacementDependsOnAddOrder) {
    kpep_db *d = db("a14");
    const char *anywhere[] = {"CORE_ACTIVE_CYCLE", "L1D_TLB_ACCESS", "MAP_INT_UOP",
                              "MAP_LDST_UOP", "MAP_SIMD_UOP"};
    // Counter-agnostic events first: they take 2,3,4,5,6; then 0xE0 gets 7 and INST_ALL
    // (counter 7 only) no longer fits.
    kpep_config *a = config(d, true);
    for (const char *n : anywhere) EXPECT_EQ(add(a, d, n), 0);
    EXPECT_EQ(add(a, d, "INST_BRANCH"), 0);
    EXPECT_EQ(add(a, d, "INST_ALL"), KPEP_ERR_CONFLICTING_EVENTS);
    // The same set in the other order fits.
    kpep_config *b = config(d, true);
    EXPECT_EQ(add(b, d, "INST_ALL"), 0);
    EXPECT_EQ(add(b, d, "INST_BRANCH"), 0);
    for (const char *n : anywhere) EXPECT_EQ(add(b, d, n), 0);
    EXPECT_EQ(map(b), (std::vector<size_t>{5, 3, 0, 1, 2, 4, 6}));
}

TEST_F(Sim, PowerCountersNeedForce) {
    kpep_db *d = db("a14");
    kpep_config *c = config(d, false);
    EXPECT_EQ(add(c, d, "INST_BRANCH"), KPEP_ERR_COUNTERS_NOT_FORCED);  // 0xE0 only
    EXPECT_EQ(add(c, d, "INST_ALL"), KPEP_ERR_COUNTERS_NOT_FORCED);     // 0x80 only
    for (const char *n : {"CORE_ACTIVE_CYCLE", "L1D_TLB_ACCESS", "MAP_INT_UOP", "MAP_LDST_UOP"}) {
        EXPECT_EQ(add(c, d, n), 0) << n;
    }
    // Without force the words are packed for the kernel's 5 counters: 2,3,4,8,9.
    EXPECT_EQ(map(c), (std::vector<size_t>{0, 1, 2, 3}));
    auto w = words(c);
    ASSERT_EQ(w.size(), 5u);
    EXPECT_EQ(w, (std::vector<kpc_config_t>{2, 160, 124, 125, 0}));  // MAP_LDST_UOP on counter 8
    EXPECT_EQ(add(c, d, "FIXED_CYCLES"), 0);
    EXPECT_EQ(map(c), (std::vector<size_t>{2, 3, 4, 5, 0}));  // absolute once fixed is used
}

TEST_F(Sim, RemoveEventShiftsIndices) {
    kpep_db *d = db("as4");
    kpep_config *c = config(d, true);
    EXPECT_EQ(add(c, d, "FIXED_CYCLES"), 0);
    EXPECT_EQ(add(c, d, "INST_BRANCH"), 0);            // 2
    EXPECT_EQ(add(c, d, "BRANCH_MISPRED_NONSPEC"), 0); // 3
    EXPECT_EQ(kpep_config_remove_event(c, 1), 0);
    EXPECT_EQ(kpep_config_remove_event(c, 5), KPEP_ERR_INVALID_ARGUMENT);
    size_t n = 0;
    EXPECT_EQ(kpep_config_events_count(c, &n), 0);
    ASSERT_EQ(n, 2u);
    kpep_event *evs[2] = {};
    EXPECT_EQ(kpep_config_events(c, evs, sizeof evs), 0);
    EXPECT_STREQ(evs[1]->name, "BRANCH_MISPRED_NONSPEC");
    EXPECT_EQ(map(c), (std::vector<size_t>{0, 3}));
    EXPECT_EQ(add(c, d, "INST_ALL"), 0);  // reuses freed counter 2
    EXPECT_EQ(map(c), (std::vector<size_t>{0, 3, 2}));
    EXPECT_EQ(kpep_config_remove_event(c, 0), 0);
    uint32_t classes = 0;
    EXPECT_EQ(kpep_config_kpc_classes(c, &classes), 0);
    EXPECT_EQ(classes, CFG);
    EXPECT_EQ(map(c), (std::vector<size_t>{1, 0}));  // now class-relative
}

TEST_F(Sim, UserOnlyFlagSetsEl0Bits) {
    kpep_db *d = db("a15");
    kpep_config *c = config(d, true);
    kpep_event *e = event(d, "CORE_ACTIVE_CYCLE");
    ASSERT_EQ(kpep_config_add_event(c, &e, 1, nullptr), 0);
    EXPECT_EQ(words(c)[0], 2u | 0x30000u);
    kpep_event *other = event(db("a14"), "INST_ALL");
    EXPECT_EQ(kpep_config_add_event(c, &other, 0, nullptr), KPEP_ERR_INVALID_ARGUMENT);
}

TEST_F(Sim, FlagsAFixedCounterCannotHonourAreRefused) {
    kpep_db *d = db("a14");
    kpep_config *c = config(d, true);
    kpep_event *fixed = event(d, "FIXED_INSTRUCTIONS");
    kpep_event *cfg = event(d, "CORE_ACTIVE_CYCLE");
    // A fixed counter counts every mode: "user space only" is refused, "all modes" taken.
    EXPECT_EQ(kpep_config_add_event(c, &fixed, 1, nullptr), KPEP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(kpep_config_add_event(c, &cfg, 2, nullptr), KPEP_ERR_INVALID_ARGUMENT);
    size_t n = 99;
    EXPECT_EQ(kpep_config_events_count(c, &n), 0);
    EXPECT_EQ(n, 0u);  // nothing was added by the refusals
    EXPECT_EQ(kpep_config_add_event(c, &fixed, 0, nullptr), 0);
    EXPECT_EQ(kpep_config_add_event(c, &cfg, 1, nullptr), 0);
    EXPECT_EQ(words(c)[0], 2u | 0x30000u);  // CORE_ACTIVE_CYCLE on counter #2, user only
}

TEST_F(Sim, LenientFlagsAreAcceptedAndChangeNoWord) {
    setenv("KPSIM_KPEP_FLAGS", "lenient", 1);
    kpsim_data_reset();
    kpep_db *d = db("a14");
    kpep_config *c = config(d, true);
    kpep_event *fixed = event(d, "FIXED_INSTRUCTIONS");
    kpep_event *cfg = event(d, "CORE_ACTIVE_CYCLE");
    EXPECT_EQ(kpep_config_add_event(c, &fixed, 1, nullptr), 0);
    EXPECT_EQ(kpep_config_add_event(c, &cfg, 3, nullptr), 0);
    EXPECT_EQ(words(c)[0], 2u | 0x30000u);  // bit 0 as before, other bits ignored
}

// ================= kernel: access rules =================

TEST_F(Sim, RootRequired) {
    kpsim_set_root(0);
    int v = 0;
    errno = 0;
    EXPECT_EQ(kpc_force_all_ctrs_get(&v), -1);
    EXPECT_EQ(errno, EPERM);
    errno = 0;
    EXPECT_EQ(kpc_pmu_version(), 0u);  // kpc.pmu_version is not public in XNU
    EXPECT_EQ(errno, EPERM);
    EXPECT_EQ(kpc_set_counting(FIX), -1);
    EXPECT_EQ(errno, EPERM);
    EXPECT_EQ(kperf_sample_set(0), -1);
    EXPECT_EQ(errno, EPERM);
    uint64_t buf[16];
    EXPECT_EQ(kpc_get_thread_counters(0, 16, buf), -1);
    EXPECT_EQ(errno, EPERM);
    // Public: counts and the cpu string.
    EXPECT_EQ(kpc_get_counter_count(FIX | CFG), 7u);
    EXPECT_EQ(kpc_get_config_count(CFG), 5u);
    char s[64];
    EXPECT_GT(kpc_cpu_string(s, sizeof s), 0);
    kpsim_set_root(1);
    EXPECT_EQ(kpc_force_all_ctrs_get(&v), 0);
    EXPECT_EQ(v, 0);
    EXPECT_EQ(kpc_pmu_version(), static_cast<uint32_t>(KPC_PMU_ARM_APPLE));
}

TEST_F(Sim, PmuBusyGivesEbusy) {
    kpsim_set_pmu_busy(1);
    int v = 0;
    errno = 0;
    EXPECT_EQ(kpc_force_all_ctrs_get(&v), -1);
    EXPECT_EQ(errno, EBUSY);
    errno = 0;
    EXPECT_EQ(kpc_get_counter_count(FIX), 0u);  // public, still EBUSY
    EXPECT_EQ(errno, EBUSY);
    EXPECT_EQ(kpc_get_counting(), 0u);
    EXPECT_EQ(errno, EBUSY);
    char s[64];
    EXPECT_GT(kpc_cpu_string(s, sizeof s), 0);
    // Root is checked first.
    kpsim_set_root(0);
    EXPECT_EQ(kpc_force_all_ctrs_get(&v), -1);
    EXPECT_EQ(errno, EPERM);
}

TEST_F(Sim, ForceAllOwnership) {
    EXPECT_EQ(kpc_get_counter_count(CFG), 5u);
    EXPECT_EQ(kpc_get_config_count(CFG), 5u);
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    EXPECT_EQ(kpc_get_counter_count(CFG), 8u);
    EXPECT_EQ(kpc_get_counter_count(FIX | CFG), 10u);
    EXPECT_EQ(state().force_owner, 1);
    ASSERT_EQ(kpc_force_all_ctrs_set(0), 0);
    EXPECT_EQ(state().force_owner, 0);

    kpsim_set_force_held_elsewhere(1);
    errno = 0;
    EXPECT_EQ(kpc_force_all_ctrs_set(1), -1);
    EXPECT_EQ(errno, EACCES);
    EXPECT_EQ(kpc_force_all_ctrs_set(0), -1);
    EXPECT_EQ(errno, EACCES);
    int v = 0;
    EXPECT_EQ(kpc_force_all_ctrs_get(&v), 0);
    EXPECT_EQ(v, 1);
    EXPECT_EQ(state().force_owner, 2);
    EXPECT_EQ(kpc_get_counter_count(CFG), 8u);  // forced system-wide
}

// The two count variants: kpc's public counts ignore forcing (KPSIM_COUNT_BEFORE_FORCE=same),
// and kpep's database answers from its plist, not as the kernel does (KPSIM_KPEP_COUNTS=plist).
TEST_F(Sim, CountVariants) {
    kpep_db *db = nullptr;
    ASSERT_EQ(kpep_db_create(nullptr, &db), 0);
    size_t cnt = 0;
    auto kpep_count = [&] {
        EXPECT_EQ(kpep_db_counters_count(db, CFG, &cnt), 0);
        return cnt;
    };
    // Strict: both answer 5 until the counters are forced, then 8.
    EXPECT_EQ(kpep_count(), 5u);
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    EXPECT_EQ(kpep_count(), 8u);
    ASSERT_EQ(kpc_force_all_ctrs_set(0), 0);

    setenv("KPSIM_KPEP_COUNTS", "plist", 1);
    kpsim_data_reset();
    EXPECT_EQ(kpc_get_counter_count(CFG), 5u);
    EXPECT_EQ(kpep_count(), 8u);

    setenv("KPSIM_COUNT_BEFORE_FORCE", "same", 1);
    unsetenv("KPSIM_KPEP_COUNTS");
    kpsim_reset();
    kpsim_data_reset();
    EXPECT_EQ(kpc_get_counter_count(CFG), 8u);
    EXPECT_EQ(kpc_get_config_count(CFG), 8u);
    EXPECT_EQ(kpc_get_counter_count(FIX | CFG), 10u);
    EXPECT_EQ(kpep_count(), 8u);
    // Only the reports change: unforced words still land on the counters the PM leaves.
    kpc_config_t words[8] = {1, 2, 4, 5, 0, 0, 0, 0};
    EXPECT_EQ(kpc_set_config(CFG, words), 0);
    EXPECT_EQ(state().config[3], 0u);  // counter #5 stays the Power Manager's
    EXPECT_EQ(state().config[6], 5u);  // word 3 -> counter #8
    kpep_db_free(db);
}

TEST_F(Sim, ConfigClassRules) {
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    kpc_config_t w[8] = {2};
    errno = 0;
    EXPECT_EQ(kpc_set_config(CFG | KPC_CLASS_POWER_MASK, w), -1);
    EXPECT_EQ(errno, EPERM);
    EXPECT_EQ(kpc_set_config(KPC_CLASS_POWER_MASK, w), -1);  // no POWER words: size 0
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(kpc_set_config(FIX, w), -1);  // fixed counters take no config
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(kpc_set_config(FIX | CFG, w), 0);
    EXPECT_EQ(state().config[0], 2u);
    EXPECT_EQ(kpc_get_config(FIX, w), -1);
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(Sim, SecureCpcAllowList) {
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    kpc_config_t good[8] = {2, 140, 0, 0, 0, 0, 0, 0};
    ASSERT_EQ(kpc_set_config(CFG, good), 0);
    // 0x11 is M4's CORE_ACTIVE_CYCLE: unknown on M1 -> refused, nothing changes.
    kpc_config_t m4word[8] = {0x11, 0, 0, 0, 0, 0, 0, 0};
    errno = 0;
    EXPECT_EQ(kpc_set_config(CFG, m4word), -1);
    EXPECT_EQ(errno, EPERM);
    EXPECT_EQ(state().config[0], 2u);
    EXPECT_EQ(state().config[1], 140u);
    kpsim_deny_selector(140);
    EXPECT_EQ(kpc_set_config(CFG, good), -1);
    EXPECT_EQ(errno, EPERM);
    const uint16_t only[] = {0x11};
    kpsim_set_allow_list(only, 1);
    EXPECT_EQ(kpc_set_config(CFG, m4word), 0);
    kpsim_set_allow_list(nullptr, 0);
    EXPECT_EQ(kpc_set_config(CFG, good), 0);

    // The mlkem-native scenario: M1 selector on an M4.
    ASSERT_EQ(kpsim_set_chip("as4"), 0);
    kpc_config_t m1word[8] = {0x02 | 0x20000, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(kpc_set_config(CFG, m1word), -1);
    EXPECT_EQ(errno, EPERM);
    EXPECT_EQ(kpc_set_config(CFG, m4word), 0);

    setenv("KPSIM_DENY", "17,58", 1);
    setenv("KPSIM_DB", "as4", 1);
    kpsim_reset();
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    EXPECT_EQ(kpc_set_config(CFG, m4word), -1);
    EXPECT_EQ(errno, EPERM);
}

TEST_F(Sim, KernelModeBitIsIgnoredOnSecureKernel) {
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    kpc_config_t w[8] = {2 | 0x40000, 140 | 0x10000, 141, 0, 0, 0, 0, 0};
    ASSERT_EQ(kpc_set_config(CFG, w), 0);
    ASSERT_EQ(kpc_set_counting(CFG), 0);
    kpc_config_t r[8] = {};
    ASSERT_EQ(kpc_get_config(CFG, r), 0);
    EXPECT_EQ(r[0], 2u | 0x20000u);       // EL1EN dropped, EL0 AArch64 instead
    EXPECT_EQ(r[1], 140u | 0x10000u);     // AArch32 only
    EXPECT_EQ(r[2], 141u | 0x20000u);     // "all modes" -> EL0 only
    EXPECT_EQ(r[3], 0u);
}

TEST_F(Sim, WordsPackOntoAvailableCountersWithoutForce) {
    kpc_config_t w[8] = {1, 2, 4, 5, 7, 8, 10, 11};
    ASSERT_EQ(kpc_set_config(CFG, w), 0);  // takes 5 words: counters 2,3,4,8,9
    auto s = state();
    EXPECT_EQ(s.config[0], 1u);
    EXPECT_EQ(s.config[1], 2u);
    EXPECT_EQ(s.config[2], 4u);
    EXPECT_EQ(s.config[3], 0u);  // counters 5-7 belong to the Power Manager
    EXPECT_EQ(s.config[5], 0u);
    EXPECT_EQ(s.config[6], 5u);
    EXPECT_EQ(s.config[7], 7u);
    EXPECT_EQ(s.config_words, 5u);
}

TEST_F(Sim, ConfigAppliedOnlyWhenCountingStarts) {
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    kpc_config_t a[8] = {2, 0, 0, 0, 0, 0, 0, 0};
    kpc_config_t b[8] = {140, 0, 0, 0, 0, 0, 0, 0};
    kpc_config_t r[8] = {};
    ASSERT_EQ(kpc_set_config(CFG, a), 0);
    EXPECT_EQ(state().config_words, 1u);
    EXPECT_EQ(state().applied_config_words, 0u);
    ASSERT_EQ(kpc_get_config(CFG, r), 0);
    EXPECT_EQ(r[0], 0u);  // not in the counters yet
    ASSERT_EQ(kpc_set_counting(FIX | CFG), 0);
    EXPECT_EQ(state().applied_config_words, 1u);
    ASSERT_EQ(kpc_get_config(CFG, r), 0);
    EXPECT_EQ(r[0] & 0xFFFF, 2u);
    ASSERT_EQ(kpc_set_config(CFG, b), 0);  // while counting: stored only
    EXPECT_EQ(state().config[0], 140u);
    ASSERT_EQ(kpc_set_counting(FIX | CFG), 0);  // still counting: no restart
    ASSERT_EQ(kpc_get_config(CFG, r), 0);
    EXPECT_EQ(r[0] & 0xFFFF, 2u);
    ASSERT_EQ(kpc_set_counting(0), 0);
    ASSERT_EQ(kpc_set_counting(FIX | CFG), 0);
    ASSERT_EQ(kpc_get_config(CFG, r), 0);
    EXPECT_EQ(r[0] & 0xFFFF, 140u);
    EXPECT_EQ(kpc_get_counting(), FIX | CFG);
}

TEST_F(Sim, ApplyImmediatelyVariant) {
    // macOS 15 and earlier: kpc_get_config reads back the new words at once.
    setenv("KPSIM_APPLY_CONFIG", "immediate", 1);
    kpsim_reset();
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    kpc_config_t a[8] = {2, 0, 0, 0, 0, 0, 0, 0};
    kpc_config_t r[8] = {};
    ASSERT_EQ(kpc_set_config(CFG, a), 0);
    EXPECT_EQ(state().applied_config_words, 1u);
    ASSERT_EQ(kpc_get_config(CFG, r), 0);
    EXPECT_EQ(r[0] & 0xFFFF, 2u);
}

TEST_F(Sim, XnuAllowListIsTheDefault) {
    // xnu-11417's T8132 (M4) list lacks ARM_L1D_CACHE (0x04), ARM_STALL_FRONTEND (0x23) and
    // ARM_STALL_BACKEND (0x24), which the M4 database has; INST_LDST (0x89b) is on it.
    ASSERT_EQ(kpsim_set_chip("as4"), 0);
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    for (kpc_config_t sel : {0x04u, 0x23u, 0x24u}) {
        kpc_config_t w[8] = {sel, 0, 0, 0, 0, 0, 0, 0};
        EXPECT_EQ(kpc_set_config(CFG, w), -1) << sel;
        EXPECT_EQ(errno, EPERM);
    }
    kpc_config_t ldst[8] = {0x89b, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(kpc_set_config(CFG, ldst), 0);
    // The lenient variant allows every selector of the database.
    setenv("KPSIM_ALLOW_LIST", "db", 1);
    setenv("KPSIM_DB", "as4", 1);
    kpsim_reset();
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    kpc_config_t l1d[8] = {0x04, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(kpc_set_config(CFG, l1d), 0);
}

TEST_F(Sim, ZeroedSelectorsReadZero) {
    setenv("KPSIM_ZERO", "140", 1);  // INST_ALL on M1 reads 0, as without an entitlement
    kpsim_reset();
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    kpc_config_t w[8] = {2, 140, 0, 0, 0, 0, 0, 0};
    ASSERT_EQ(kpc_set_config(CFG, w), 0);
    ASSERT_EQ(kpc_set_counting(FIX | CFG), 0);
    ASSERT_EQ(kpc_set_thread_counting(FIX | CFG), 0);
    uint64_t a[10], b[10];
    ASSERT_EQ(kpc_get_thread_counters(0, 10, a), 0);
    burn_cpu_ns(5 * 1000 * 1000);
    ASSERT_EQ(kpc_get_thread_counters(0, 10, b), 0);
    EXPECT_GT(b[2], a[2]);  // CORE_ACTIVE_CYCLE counts
    EXPECT_EQ(b[3], 0u);    // INST_ALL silently reads 0
}

TEST_F(Sim, EachReadAddsKernelInstructions) {
    // FIXED_INSTRUCTIONS counts the kernel's work in each kpc_get_thread_counters call;
    // INST_ALL (user mode only) does not. Both count the user work between the reads at the
    // same rate, so their difference is the kernel's share alone, however slow the build.
    for (uint64_t per_read : {17700u, 0u}) {
        SCOPED_TRACE(per_read);
        setenv("KPSIM_READ_KERNEL_INSTRUCTIONS", std::to_string(per_read).c_str(), 1);
        kpsim_reset();
        ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
        kpc_config_t w[8] = {140, 0, 0, 0, 0, 0, 0, 0};
        ASSERT_EQ(kpc_set_config(CFG, w), 0);
        ASSERT_EQ(kpc_set_counting(FIX | CFG), 0);
        ASSERT_EQ(kpc_set_thread_counting(FIX | CFG), 0);
        uint64_t a[10], b[10];
        ASSERT_EQ(kpc_get_thread_counters(0, 10, a), 0);
        ASSERT_EQ(kpc_get_thread_counters(0, 10, b), 0);
        const double kernel = static_cast<double>(b[1] - a[1]) - static_cast<double>(b[2] - a[2]);
        EXPECT_NEAR(kernel, static_cast<double>(per_read), 2.0);  // milli-event rounding
    }
}

TEST_F(Sim, DbNameAndMapVariants) {
    setenv("KPSIM_DB_NAME_API", "short", 1);
    kpsim_data_reset();
    kpep_db *d = db("as4");
    ASSERT_NE(d, nullptr);
    const char *name = nullptr;
    ASSERT_EQ(kpep_db_name(d, &name), 0);
    EXPECT_STREQ(name, "as4");
    // Without a fixed event the map is class-relative by default, absolute in the variant.
    for (bool absolute : {false, true}) {
        if (absolute) setenv("KPSIM_KPC_MAP", "absolute", 1);
        kpsim_data_reset();
        kpep_config *c = config(d, true);
        ASSERT_EQ(add(c, d, "INST_BRANCH"), 0);
        size_t map[1] = {99};
        ASSERT_EQ(kpep_config_kpc_map(c, map, sizeof map), 0);
        EXPECT_EQ(map[0], absolute ? 2u : 0u);
    }
}

TEST_F(Sim, UnknownFutureChip) {
    kpep_db *d = db("as6");
    ASSERT_NE(d, nullptr);
    const char *name = nullptr;
    ASSERT_EQ(kpep_db_name(d, &name), 0);
    EXPECT_STREQ(name, "Apple M6");
    EXPECT_STREQ(field<const char *>(d, 0), "as6");
    for (const char *e : {"FIXED_CYCLES", "FIXED_INSTRUCTIONS", "INST_BRANCH",
                          "BRANCH_MISPRED_NONSPEC", "L1D_CACHE_MISS_LD_NONSPEC"})
        EXPECT_NE(event(d, e), nullptr) << e;
}

// ================= kernel: per-thread counters =================

TEST_F(Sim, EnablingThreadReadsAtOnceOthersFailFirst) {
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    ASSERT_EQ(kpc_set_counting(FIX), 0);
    uint64_t buf[32];
    EXPECT_EQ(kpc_get_thread_counters(0, 32, buf), -1);  // thread counting off, no buffer
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(state().thread_buffers, 0u);
    ASSERT_EQ(kpc_set_thread_counting(FIX), 0);
    EXPECT_EQ(kpc_get_thread_counting(), FIX);
    EXPECT_EQ(state().thread_buffers, 1u);
    EXPECT_EQ(kpc_get_thread_counters(0, 32, buf), 0);  // AST gave us a buffer

    // Strict (default): another thread fails, and so does an immediate retry (a failed read
    // allocates nothing); its buffer comes with its next context switch, or when it enables
    // thread counting itself.
    int first = 0, first_errno = 0, retry = 0, retry_errno = 0, after_switch = 0;
    int claimed_first = 0, claimed = 0;
    std::thread t([&] {
        uint64_t b[32];
        first = kpc_get_thread_counters(0, 32, b);
        first_errno = errno;
        retry = kpc_get_thread_counters(0, 32, b);
        retry_errno = errno;
        usleep(2000);  // sleeping is a context switch
        after_switch = kpc_get_thread_counters(0, 32, b);
    });
    t.join();
    EXPECT_EQ(first, -1);
    EXPECT_EQ(first_errno, EINVAL);
    EXPECT_EQ(retry, -1);
    EXPECT_EQ(retry_errno, EINVAL);
    EXPECT_EQ(after_switch, 0);
    std::thread t2([&] {
        uint64_t b[32];
        claimed_first = kpc_get_thread_counters(0, 32, b);
        ASSERT_EQ(kpc_set_thread_counting(FIX), 0);  // the thread enables it itself
        claimed = kpc_get_thread_counters(0, 32, b);
    });
    t2.join();
    EXPECT_EQ(claimed_first, -1);
    EXPECT_EQ(claimed, 0);
    EXPECT_EQ(state().thread_buffers, 1u);  // the workers' buffers went with the threads
}

TEST_F(Sim, LazyBufferVariants) {
    // first-read: the failing read allocates, so exactly one read fails.
    setenv("KPSIM_LAZY_BUFFER", "first-read", 1);
    kpsim_reset();
    ASSERT_EQ(kpc_set_counting(FIX), 0);
    ASSERT_EQ(kpc_set_thread_counting(FIX), 0);
    int first = 0, second = 0;
    std::thread t([&] {
        uint64_t b[2];
        first = kpc_get_thread_counters(0, 2, b);
        second = kpc_get_thread_counters(0, 2, b);
    });
    t.join();
    EXPECT_EQ(first, -1);
    EXPECT_EQ(second, 0);
    // eager: every thread can read as soon as thread counting is on.
    setenv("KPSIM_LAZY_BUFFER", "eager", 1);
    kpsim_reset();
    ASSERT_EQ(kpc_set_counting(FIX), 0);
    ASSERT_EQ(kpc_set_thread_counting(FIX), 0);
    std::thread t2([&] {
        uint64_t b[2];
        first = kpc_get_thread_counters(0, 2, b);
    });
    t2.join();
    EXPECT_EQ(first, 0);
}

TEST_F(Sim, StrictFirstReadMode) {
    kpsim_set_strict_first_read(1);
    ASSERT_EQ(kpc_set_counting(FIX), 0);
    ASSERT_EQ(kpc_set_thread_counting(FIX), 0);
    uint64_t buf[2];
    EXPECT_EQ(kpc_get_thread_counters(0, 2, buf), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(kpc_get_thread_counters(0, 2, buf), -1);  // strict: the retry fails too
    usleep(2000);
    EXPECT_EQ(kpc_get_thread_counters(0, 2, buf), 0);
}

TEST_F(Sim, ThreadCounterArgumentChecks) {
    ASSERT_EQ(kpc_set_counting(FIX | CFG), 0);
    ASSERT_EQ(kpc_set_thread_counting(FIX | CFG), 0);  // 2 + 5 counters without force
    uint64_t buf[32];
    EXPECT_EQ(kpc_get_thread_counters(1, 32, buf), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(kpc_get_thread_counters(0, 6, buf), -1);
    EXPECT_EQ(errno, ENOMEM);  // sysctl copyout: oldlen too small
    buf[7] = 0x5a5a;
    EXPECT_EQ(kpc_get_thread_counters(0, 32, buf), 0);
    EXPECT_EQ(buf[7], 0x5a5au);  // only 7 values written
}

TEST_F(Sim, CountsFollowWorkAndLayout) {
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    kpc_config_t w[8] = {2, 140, 0, 0, 0, 0, 0, 0};  // CORE_ACTIVE_CYCLE, INST_ALL on M1
    ASSERT_EQ(kpc_set_config(CFG, w), 0);
    ASSERT_EQ(kpc_set_counting(FIX | CFG), 0);
    ASSERT_EQ(kpc_set_thread_counting(FIX | CFG), 0);
    uint64_t a[10], b[10];
    ASSERT_EQ(kpc_get_thread_counters(0, 10, a), 0);
    burn_cpu_ns(20 * 1000 * 1000);
    ASSERT_EQ(kpc_get_thread_counters(0, 10, b), 0);
    uint64_t cycles = b[0] - a[0], instrs = b[1] - a[1];
    EXPECT_GT(cycles, 20u * 1000 * 1000 * 2);  // ~3 per ns of CPU time
    EXPECT_NEAR(static_cast<double>(instrs) / static_cast<double>(cycles), 2.0, 0.01);
    EXPECT_NEAR(static_cast<double>(b[2] - a[2]) / static_cast<double>(cycles), 1.0, 0.01);  // CORE_ACTIVE_CYCLE
    EXPECT_NEAR(static_cast<double>(b[3] - a[3]) / static_cast<double>(instrs), 1.0, 0.01);  // INST_ALL
    for (int i = 4; i < 10; ++i) EXPECT_EQ(b[i], 0u) << i;  // no event configured
    // Only the configurable class: values shift to index 0.
    ASSERT_EQ(kpc_set_thread_counting(CFG), 0);
    uint64_t c[8];
    ASSERT_EQ(kpc_get_thread_counters(0, 8, c), 0);
    EXPECT_GE(c[0], b[2]);
    EXPECT_GE(c[1], b[3]);
    // Stop counting: totals freeze (but stay readable).
    ASSERT_EQ(kpc_set_counting(0), 0);
    uint64_t d1[8], d2[8];
    ASSERT_EQ(kpc_get_thread_counters(0, 8, d1), 0);
    burn_cpu_ns(5 * 1000 * 1000);
    ASSERT_EQ(kpc_get_thread_counters(0, 8, d2), 0);
    EXPECT_EQ(d1[0], d2[0]);
}

TEST_F(Sim, UnforcedPowerCountersDoNotCount) {
    kpc_config_t w[8] = {2, 0, 0, 140, 0, 0, 0, 0};  // 5 words: counters 2,3,4,8,9
    ASSERT_EQ(kpc_set_config(CFG, w), 0);
    ASSERT_EQ(kpc_set_counting(CFG), 0);
    ASSERT_EQ(kpc_set_thread_counting(CFG), 0);
    uint64_t buf[8];
    ASSERT_EQ(kpc_get_thread_counters(0, 8, buf), 0);
    burn_cpu_ns(2 * 1000 * 1000);
    ASSERT_EQ(kpc_get_thread_counters(0, 8, buf), 0);
    EXPECT_GT(buf[0], 0u);  // counter 2
    EXPECT_GT(buf[3], 0u);  // counter 8 got word 3
    // Forcing later does not start counters 5-7 until counting restarts.
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    EXPECT_EQ(kpc_get_counting(), 0u);  // running mask no longer covers all counters
}

TEST_F(Sim, ThreadsAreIsolatedAndGrowWithWork) {
    ASSERT_EQ(kpc_set_counting(FIX), 0);
    ASSERT_EQ(kpc_set_thread_counting(FIX), 0);
    auto worker = [](uint64_t work_ns, uint64_t *delta) {
        uint64_t a[2], b[2];
        if (kpc_get_thread_counters(0, 2, a) != 0) {  // lazy buffer
            ASSERT_EQ(errno, EINVAL);
            ASSERT_EQ(kpc_set_thread_counting(FIX), 0);  // claim one, as libkpc does
            ASSERT_EQ(kpc_get_thread_counters(0, 2, a), 0);
        }
        burn_cpu_ns(work_ns);
        ASSERT_EQ(kpc_get_thread_counters(0, 2, b), 0);
        ASSERT_GE(b[0], a[0]);
        *delta = b[0] - a[0];
    };
    uint64_t small = 0, big = 0;
    std::thread t1(worker, 10ull * 1000 * 1000, &small);
    std::thread t2(worker, 60ull * 1000 * 1000, &big);
    t1.join();
    t2.join();
    EXPECT_GT(small, 0u);
    EXPECT_GT(big, 3 * small);  // 6x the CPU time
    EXPECT_LT(big, 12 * small);
}

TEST_F(Sim, ConcurrentReadsAreMonotonic) {
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    kpc_config_t w[8] = {2, 0, 0, 0, 0, 0, 0, 0};
    ASSERT_EQ(kpc_set_config(CFG, w), 0);
    ASSERT_EQ(kpc_set_counting(FIX | CFG), 0);
    ASSERT_EQ(kpc_set_thread_counting(FIX | CFG), 0);
    std::atomic<int> failures{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < 8; ++t) {
        ts.emplace_back([&failures] {
            uint64_t prev[10] = {}, cur[10];
            int einval = 0;
            for (int i = 0; i < 2000; ++i) {
                if (kpc_get_thread_counters(0, 10, cur) != 0) {
                    if (errno != EINVAL || ++einval > 1) failures++;
                    // Claim a buffer as libkpc does: enable thread counting from this thread.
                    if (kpc_set_thread_counting(FIX | CFG) != 0) failures++;
                    continue;
                }
                for (int j = 0; j < 10; ++j) {
                    if (cur[j] < prev[j]) failures++;
                    prev[j] = cur[j];
                }
            }
            if (prev[0] == 0) failures++;
        });
    }
    kpsim_kernel_state s{};
    for (int i = 0; i < 50; ++i) kpsim_kernel_get_state(&s);  // concurrent observer
    for (auto &t : ts) t.join();
    EXPECT_EQ(failures.load(), 0);
}

TEST_F(Sim, CpuCounters) {
    uint32_t ncpu = kpsim_ncpu();
    ASSERT_GE(ncpu, 1u);
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    ASSERT_EQ(kpc_set_counting(FIX), 0);
    std::vector<uint64_t> a(ncpu * 2 + 1, 0xabcd), b(ncpu * 2);
    int cpu = -1;
    ASSERT_EQ(kpc_get_cpu_counters(true, FIX, &cpu, a.data()), 0);
    EXPECT_GE(cpu, 0);
    EXPECT_LT(cpu, static_cast<int>(ncpu));
    EXPECT_EQ(a[ncpu * 2], 0xabcdu);  // exactly ncpu * counter_count values
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, nullptr);
    ASSERT_EQ(kpc_get_cpu_counters(true, FIX, nullptr, b.data()), 0);
    for (uint32_t i = 0; i < ncpu * 2; ++i) EXPECT_GT(b[i], a[i]) << i;
    uint64_t one[2];
    EXPECT_EQ(kpc_get_cpu_counters(false, FIX, nullptr, one), 0);
    EXPECT_EQ(kpc_get_cpu_counters(false, 0, nullptr, one), -1);
    EXPECT_EQ(errno, EINVAL);
}

// ================= kperf sampling, ticks, cpu string =================

TEST_F(Sim, KperfSamplingState) {
    EXPECT_EQ(kperf_sample_set(1), -1);
    EXPECT_EQ(errno, ECANCELED);  // no actions configured
    ASSERT_EQ(kperf_action_count_set(KPERF_ACTION_MAX), 0);
    EXPECT_EQ(kperf_action_count_set(2), -1);  // cannot shrink
    EXPECT_EQ(kperf_action_count_set(33), -1);
    EXPECT_EQ(kperf_action_samplers_set(1, KPERF_SAMPLER_PMC_THREAD | KPERF_SAMPLER_PMC_CPU), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(kperf_action_samplers_set(0, 1), -1);
    ASSERT_EQ(kperf_action_samplers_set(1, KPERF_SAMPLER_PMC_THREAD), 0);
    uint32_t v = 0;
    ASSERT_EQ(kperf_action_samplers_get(1, &v), 0);
    EXPECT_EQ(v, static_cast<uint32_t>(KPERF_SAMPLER_PMC_THREAD));
    ASSERT_EQ(kperf_action_filter_set_by_pid(1, 1234), 0);
    ASSERT_EQ(kperf_timer_count_set(KPERF_TIMER_MAX), 0);
    EXPECT_EQ(kperf_timer_count_set(9), -1);
    ASSERT_EQ(kperf_timer_period_set(0, 10), 0);
    uint64_t period = 0;
    ASSERT_EQ(kperf_timer_period_get(0, &period), 0);
    EXPECT_EQ(period, 1200u);  // clamped to 50 us
    ASSERT_EQ(kperf_timer_action_set(0, 1), 0);
    ASSERT_EQ(kperf_timer_pet_set(0), 0);
    ASSERT_EQ(kperf_timer_period_get(0, &period), 0);
    EXPECT_EQ(period, 24000u);  // PET minimum 1 ms
    ASSERT_EQ(kperf_sample_set(1), 0);
    EXPECT_EQ(kperf_timer_period_set(0, 48000), -1);
    EXPECT_EQ(errno, EBUSY);
    ASSERT_EQ(kperf_sample_get(&v), 0);
    EXPECT_EQ(v, 1u);
    ASSERT_EQ(kperf_reset(), 0);
    ASSERT_EQ(kperf_sample_get(&v), 0);
    EXPECT_EQ(v, 0u);
    ASSERT_EQ(kperf_timer_pet_get(&v), 0);
    EXPECT_EQ(v, static_cast<uint32_t>(KPERF_PET_INACTIVE));
    ASSERT_EQ(kperf_action_samplers_get(1, &v), 0);
    EXPECT_EQ(v, 0u);
    ASSERT_EQ(kperf_action_count_get(&v), 0);
    EXPECT_EQ(v, static_cast<uint32_t>(KPERF_ACTION_MAX));  // counts survive kperf_reset
    EXPECT_EQ(kperf_tick_frequency(), 24000000u);
    EXPECT_EQ(kperf_ns_to_ticks(1000000000), 24000000u);
    EXPECT_EQ(kperf_ticks_to_ns(24), 1000u);
}

TEST_F(Sim, CpuStringPerChip) {
    char buf[64];
    EXPECT_EQ(kpc_cpu_string(buf, sizeof buf), 22);
    EXPECT_STREQ(buf, "cpu_100000c_2_1b588bb3");
    EXPECT_EQ(kpc_cpu_string(buf, 22), -1);  // no room for the NUL
    EXPECT_EQ(errno, ENOMEM);
    const std::map<std::string, std::string> fam = {
        {"a15", "da33d83d"}, {"as1", "fa33415e"}, {"as4", "6f5129ac"},
        {"as5", "1d5a87e8"}, {"as5-2", "1d7a72b"}};
    for (const auto &kv : fam) {
        ASSERT_EQ(kpsim_data_set_db(kv.first.c_str()), 0);
        ASSERT_GT(kpc_cpu_string(buf, sizeof buf), 0);
        EXPECT_EQ(std::string(buf), "cpu_100000c_2_" + kv.second) << kv.first;
        EXPECT_STREQ(kpsim_get_chip(), kv.first.c_str());
    }
}

TEST_F(Sim, ChipIsSharedBetweenLibraries) {
    ASSERT_EQ(kpsim_data_set_db("as4"), 0);
    EXPECT_STREQ(kpsim_get_chip(), "as4");
    kpep_db *d = db(nullptr);
    EXPECT_STREQ(field<const char *>(d, 0), "as4");
    ASSERT_EQ(kpsim_set_chip("a15"), 0);  // the kernel decides what NULL opens
    kpep_db *d2 = db(nullptr);
    EXPECT_STREQ(field<const char *>(d2, 0), "a15");
    EXPECT_EQ(kpsim_data_set_db("bogus name!"), -1);
    EXPECT_EQ(kpsim_set_chip("bogus name!"), -1);
    ASSERT_EQ(kpsim_data_set_db("none"), 0);
    kpep_db *none = nullptr;
    EXPECT_EQ(kpep_db_create(nullptr, &none), KPEP_ERR_DB_NOT_FOUND);
    ASSERT_EQ(kpsim_data_set_db("a14-legacy48"), 0);
    kpep_db *legacy = db(nullptr);
    std::vector<kpep_event *> evs(60);
    ASSERT_EQ(kpep_db_events(legacy, evs.data(), evs.size() * sizeof(void *)), KPEP_ERR_NONE);
    EXPECT_EQ(reinterpret_cast<char *>(evs[1]) - reinterpret_cast<char *>(evs[0]), 48);
}

// ================= faults, env, reset =================

TEST_F(Sim, FaultInjection) {
    ASSERT_EQ(kpsim_fail("kpc_set_counting", 2, EIO), 0);
    EXPECT_EQ(kpsim_fail("not_a_symbol", 1, EIO), -1);
    EXPECT_EQ(kpsim_fail("kpc_set_counting", 0, EIO), -1);
    EXPECT_EQ(kpc_set_counting(FIX), 0);
    errno = 0;
    EXPECT_EQ(kpc_set_counting(FIX), -1);
    EXPECT_EQ(errno, EIO);
    EXPECT_EQ(kpc_set_counting(FIX), 0);
    ASSERT_EQ(kpsim_fail("kpc_get_counter_count", 1, EBUSY), 0);
    EXPECT_EQ(kpc_get_counter_count(FIX), 0u);
    EXPECT_EQ(errno, EBUSY);
    EXPECT_EQ(kpc_get_counter_count(FIX), 2u);
    ASSERT_EQ(kpsim_fail("kperf_tick_frequency", 1, EIO), 0);
    kpsim_clear_faults();
    EXPECT_EQ(kperf_tick_frequency(), 24000000u);

    ASSERT_EQ(kpsim_data_fail("kpep_db_create", 1, KPEP_ERR_CUR_SYSTEM_UNKNOWN), 0);
    EXPECT_EQ(kpsim_data_fail("kpep_db_free", 1, 1), -1);  // void: not injectable
    kpep_db *d = nullptr;
    EXPECT_EQ(kpep_db_create(nullptr, &d), KPEP_ERR_CUR_SYSTEM_UNKNOWN);
    EXPECT_EQ(d, nullptr);
    kpep_db *ok = db(nullptr);
    ASSERT_NE(ok, nullptr);
    ASSERT_EQ(kpsim_data_fail("kpep_config_add_event", 1, KPEP_ERR_EVENT_UNAVAILABLE), 0);
    kpep_config *c = config(ok, true);
    EXPECT_EQ(add(c, ok, "INST_ALL"), KPEP_ERR_EVENT_UNAVAILABLE);
    EXPECT_EQ(add(c, ok, "INST_ALL"), 0);
    ASSERT_EQ(kpsim_data_fail("kpep_db_event", 1, 3), 0);
    kpsim_data_clear_faults();
    EXPECT_NE(event(ok, "INST_ALL"), nullptr);
}

TEST_F(Sim, EnvironmentIsReadOnReset) {
    setenv("KPSIM_ROOT", "0", 1);
    setenv("KPSIM_FAIL", "kpc_get_counter_count:1:EACCES,kpc_cpu_string:2:5", 1);
    setenv("KPSIM_DATA_FAIL", "kpep_db_create:1:7", 1);
    setenv("KPSIM_DB", "as5", 1);
    kpsim_reset();
    kpsim_data_reset();
    int v;
    EXPECT_EQ(kpc_force_all_ctrs_get(&v), -1);
    EXPECT_EQ(errno, EPERM);
    EXPECT_EQ(kpc_get_counter_count(FIX), 0u);
    EXPECT_EQ(errno, EACCES);
    char buf[64];
    EXPECT_GT(kpc_cpu_string(buf, sizeof buf), 0);
    EXPECT_STREQ(buf, "cpu_100000c_2_1d5a87e8");
    EXPECT_EQ(kpc_cpu_string(buf, sizeof buf), -1);
    EXPECT_EQ(errno, EIO);
    kpep_db *d = nullptr;
    EXPECT_EQ(kpep_db_create(nullptr, &d), KPEP_ERR_DB_NOT_FOUND);
    kpep_db *d2 = db(nullptr);
    EXPECT_STREQ(field<const char *>(d2, 0), "as5");
    setenv("KPSIM_PMU_BUSY", "1", 1);
    setenv("KPSIM_ROOT", "1", 1);
    setenv("KPSIM_FORCE_HELD", "1", 1);
    kpsim_reset();
    EXPECT_EQ(kpc_force_all_ctrs_get(&v), -1);
    EXPECT_EQ(errno, EBUSY);
    kpsim_set_pmu_busy(0);
    EXPECT_EQ(kpc_force_all_ctrs_set(1), -1);
    EXPECT_EQ(errno, EACCES);
}

TEST_F(Sim, ResetRestoresBootState) {
    ASSERT_EQ(kpc_force_all_ctrs_set(1), 0);
    kpc_config_t w[8] = {2, 140, 0, 0, 0, 0, 0, 0};
    ASSERT_EQ(kpc_set_config(CFG, w), 0);
    ASSERT_EQ(kpc_set_counting(FIX | CFG), 0);
    ASSERT_EQ(kpc_set_thread_counting(FIX | CFG), 0);
    uint64_t buf[10];
    ASSERT_EQ(kpc_get_thread_counters(0, 10, buf), 0);
    kpsim_set_root(0);
    auto s = state();
    EXPECT_EQ(s.counting, FIX | CFG);
    EXPECT_EQ(s.thread_counting, FIX | CFG);
    EXPECT_EQ(s.force_all_ctrs, 1);
    EXPECT_EQ(s.config_words, 2u);
    EXPECT_EQ(s.applied_config_words, 2u);
    EXPECT_EQ(s.thread_buffers, 1u);
    EXPECT_EQ(s.calls, 5u);
    kpsim_reset();
    s = state();
    EXPECT_EQ(s.counting, 0u);
    EXPECT_EQ(s.thread_counting, 0u);
    EXPECT_EQ(s.force_all_ctrs, 0);
    EXPECT_EQ(s.force_owner, 0);
    EXPECT_EQ(s.config_words, 0u);
    EXPECT_EQ(s.applied_config_words, 0u);
    EXPECT_EQ(s.thread_buffers, 0u);
    EXPECT_EQ(s.calls, 0u);
    int v = 5;
    EXPECT_EQ(kpc_force_all_ctrs_get(&v), 0);  // root again
    EXPECT_EQ(v, 0);
    EXPECT_EQ(kpc_get_thread_counters(0, 10, buf), -1);  // buffer gone
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(Sim, LiveObjectCounts) {
    size_t dbs = kpsim_data_live_dbs(), cfgs = kpsim_data_live_configs();
    kpep_db *d = nullptr;
    ASSERT_EQ(kpep_db_create("a15", &d), 0);
    EXPECT_EQ(kpsim_data_live_dbs(), dbs + 1);
    kpep_config *c = nullptr;
    ASSERT_EQ(kpep_config_create(d, &c), 0);
    EXPECT_EQ(kpsim_data_live_configs(), cfgs + 1);
    kpsim_data_reset();  // counts are kept
    EXPECT_EQ(kpsim_data_live_configs(), cfgs + 1);
    kpep_config_free(c);
    kpep_db_free(d);
    EXPECT_EQ(kpsim_data_live_dbs(), dbs);
    EXPECT_EQ(kpsim_data_live_configs(), cfgs);
    kpep_db_free(nullptr);
    kpep_config_free(nullptr);
}

TEST_F(Sim, DoubleFreeAborts) {
    kpep_db *d = nullptr;
    ASSERT_EQ(kpep_db_create("a14", &d), 0);
    kpep_db_free(d);
    EXPECT_DEATH(kpep_db_free(d), "not a live kpep_db");
}

}  // namespace
