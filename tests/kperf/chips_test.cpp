// Every simulated chip database: CPU identification, the event list, the generic-name
// mapping per generation, and counting end to end. Plus the legacy 48-byte event layout
// and a database libkpc does not know.
#include <cstring>
#include <map>

#include "kperf_fixture.hpp"
#include "sim_rates.hpp"

namespace kperf_test {
namespace {

struct ChipCase {
    const char *db;
    const char *cpu_name;
    const char *generation;  // in the PMU name
    // Expected native events behind some generic names on this generation.
    const char *l1d_load_misses;
    const char *stalled_frontend;
    const char *stalled_backend;
    const char *cache_references;
    uint64_t inst_branch_selector;  // INST_BRANCH's selector (apple-events.csv)
    uint64_t l1d_miss_ld_selector;  // L1D_CACHE_MISS_LD's selector
};

const ChipCase kChips[] = {
    {"a14", "Apple M1", "M1 generation", "L1D_CACHE_MISS_LD_NONSPEC", "MAP_DISPATCH_BUBBLE",
     "MAP_STALL_DISPATCH", "INST_LDST", 141, 163},
    {"a15", "Apple M2", "M2 generation", "L1D_CACHE_MISS_LD_NONSPEC", "MAP_DISPATCH_BUBBLE",
     "MAP_STALL_DISPATCH", "INST_LDST", 141, 163},
    {"as1", "Apple M3", "M3 generation", "L1D_CACHE_MISS_LD_NONSPEC", "MAP_DISPATCH_BUBBLE",
     "MAP_STALL_DISPATCH", "INST_LDST", 141, 1443},
    {"as4", "Apple M4", "M4 generation", "L1D_CACHE_MISS_LD_NONSPEC", "ARM_STALL_FRONTEND",
     "ARM_STALL_BACKEND", "ARM_L1D_CACHE", 33, 1443},
    {"as5", "Apple M5", "M5 generation", "L1D_CACHE_MISS_LD_NONSPEC", "ARM_STALL_FRONTEND",
     "ARM_STALL_BACKEND", "ARM_L1D_CACHE", 33, 1443},
    {"a14-legacy48", "Apple M1", "M1 generation", "L1D_CACHE_MISS_LD_NONSPEC",
     "MAP_DISPATCH_BUBBLE", "MAP_STALL_DISPATCH", "INST_LDST", 141, 163},
};

void PrintTo(const ChipCase &c, std::ostream *os) { *os << c.db; }

class Chips : public KperfTest, public ::testing::WithParamInterface<ChipCase> {
protected:
    const char *chip() const override { return GetParam().db; }
};

const kp_event_t *find(kp_sampler_t *s, const char *name) {
    const kp_event_t *e = nullptr;
    EXPECT_EQ(kp_sampler_event_find(&e, s, name), KP_OK) << name << ": " << last_message();
    return e;
}

TEST_P(Chips, IdentifiesTheCpu) {
    const ChipCase &c = GetParam();
    Sampler s = must_sampler();
    ASSERT_TRUE(s);
    // The legacy-layout database is still the a14 plist.
    const std::string want_id = std::strcmp(c.db, "a14-legacy48") == 0 ? "a14" : c.db;
    EXPECT_EQ(std::string(kp_sampler_cpu_id(s.get())), want_id);
    EXPECT_STREQ(kp_sampler_cpu_name(s.get()), c.cpu_name);
    std::string pmu = kp_sampler_pmu_name(s.get());
    EXPECT_NE(pmu.find("Apple PMU"), std::string::npos) << pmu;
    EXPECT_NE(pmu.find(c.generation), std::string::npos) << pmu;
    uint32_t fixed = 0, conf = 0;
    ASSERT_EQ(kp_sampler_counter_count(&fixed, &conf, s.get()), KP_OK);
    EXPECT_EQ(fixed, 2u);
    EXPECT_EQ(conf, 8u);
    EXPECT_EQ(kp_sampler_access(s.get()), KP_OK) << last_message();
}

TEST_P(Chips, ListsEveryDatabaseEventWithItsFields) {
    Sampler s = must_sampler();
    ASSERT_TRUE(s);
    size_t natives = 0, generics = 0;
    for (size_t i = 0; i < kp_sampler_event_count(s.get()); ++i) {
        const kp_event_t *e = kp_sampler_event_at(s.get(), i);
        ASSERT_NE(e, nullptr);
        if (kp_event_is_generic(e)) {
            ++generics;
            EXPECT_EQ(natives, 0u) << "generic events are listed first";
            continue;
        }
        ++natives;
        EXPECT_STREQ(kp_event_name(e), kp_event_native_name(e));
        if (kp_event_kind(e) != KP_EVENT_FIXED)  // the plists give fixed events no description
            EXPECT_STRNE(kp_event_description(e), "") << kp_event_name(e);
        EXPECT_TRUE(kp_event_is_available(e)) << kp_event_name(e);
        EXPECT_NE(kp_event_counters_mask(e), 0u) << kp_event_name(e);
        EXPECT_EQ(kp_event_counters_mask(e) & ~0x3FFu, 0u) << kp_event_name(e);
    }
    EXPECT_GT(natives, 40u);
    EXPECT_GT(generics, 15u);

    const kp_event_t *cyc = find(s.get(), "FIXED_CYCLES");
    ASSERT_NE(cyc, nullptr);
    EXPECT_EQ(kp_event_kind(cyc), KP_EVENT_FIXED);
    EXPECT_EQ(kp_event_fixed_counter(cyc), 0);
    EXPECT_EQ(kp_event_counters_mask(cyc), 1u);
    ASSERT_NE(kp_event_alias(cyc), nullptr);
    EXPECT_STREQ(kp_event_alias(cyc), "Cycles");

    const kp_event_t *ins = find(s.get(), "FIXED_INSTRUCTIONS");
    ASSERT_NE(ins, nullptr);
    EXPECT_EQ(kp_event_kind(ins), KP_EVENT_FIXED);
    EXPECT_EQ(kp_event_fixed_counter(ins), 1);
    ASSERT_NE(kp_event_fallback(ins), nullptr);
    EXPECT_STREQ(kp_event_fallback(ins), "INST_ALL");

    const kp_event_t *br = find(s.get(), "INST_BRANCH");
    ASSERT_NE(br, nullptr);
    EXPECT_EQ(kp_event_kind(br), KP_EVENT_CONFIGURABLE);
    EXPECT_EQ(kp_event_fixed_counter(br), -1);
    EXPECT_EQ(kp_event_selector(br), GetParam().inst_branch_selector);
    const kp_event_t *l1d = find(s.get(), "L1D_CACHE_MISS_LD");
    ASSERT_NE(l1d, nullptr);
    EXPECT_EQ(kp_event_selector(l1d), GetParam().l1d_miss_ld_selector);
    EXPECT_EQ(kp_event_counters_mask(l1d), 0x3FCu) << "no mask in the plist: any configurable counter";
}

TEST_P(Chips, MapsGenericNamesForTheGeneration) {
    const ChipCase &c = GetParam();
    Sampler s = must_sampler();
    ASSERT_TRUE(s);
    const std::map<std::string, std::string> want = {
        {"cycles", "FIXED_CYCLES"},
        {"instructions", "FIXED_INSTRUCTIONS"},
        {"branches", "INST_BRANCH"},
        {"branch-misses", "BRANCH_MISPRED_NONSPEC"},
        {"l1d-load-misses", c.l1d_load_misses},
        {"l1d-store-misses", "L1D_CACHE_MISS_ST_NONSPEC"},
        {"l1i-load-misses", "L1I_CACHE_MISS_DEMAND"},
        {"dtlb-load-misses", "L1D_TLB_MISS_NONSPEC"},
        {"itlb-load-misses", "L1I_TLB_MISS_DEMAND"},
        {"cache-misses", "L1D_CACHE_MISS_LD_NONSPEC"},
        {"cache-references", c.cache_references},
        {"stalled-cycles-frontend", c.stalled_frontend},
        {"stalled-cycles-backend", c.stalled_backend},
    };
    for (const auto &[generic, native] : want) {
        const kp_event_t *e = find(s.get(), generic.c_str());
        ASSERT_NE(e, nullptr) << generic;
        EXPECT_TRUE(kp_event_is_generic(e)) << generic;
        EXPECT_TRUE(kp_event_is_available(e)) << generic << ": " << kp_event_unavailable_reason(e);
        EXPECT_EQ(std::string(kp_event_native_name(e)), native) << generic;
        const kp_event_t *n = find(s.get(), native.c_str());
        ASSERT_NE(n, nullptr);
        EXPECT_EQ(kp_event_selector(e), kp_event_selector(n)) << generic;
        EXPECT_EQ(kp_event_counters_mask(e), kp_event_counters_mask(n)) << generic;
        EXPECT_EQ(kp_event_kind(e), kp_event_kind(n)) << generic;
    }
    // No reference clock on Apple; software events belong to the OS.
    const kp_event_t *ref = find(s.get(), "ref-cycles");
    ASSERT_NE(ref, nullptr);
    EXPECT_FALSE(kp_event_is_available(ref));
    EXPECT_NE(std::string(kp_event_unavailable_reason(ref)).find("reference"), std::string::npos);
    // kperf's counters are not split by core type: the per-perf-level names point to recount.
    for (const char *name : {"p-cycles", "e-cycles", "p-instructions", "e-instructions"}) {
        const kp_event_t *pe = find(s.get(), name);
        ASSERT_NE(pe, nullptr) << name;
        EXPECT_TRUE(kp_event_is_generic(pe)) << name;
        EXPECT_FALSE(kp_event_is_available(pe)) << name;
        EXPECT_NE(std::string(kp_event_unavailable_reason(pe)).find("KPC_BACKEND=recount"),
                  std::string::npos)
            << kp_event_unavailable_reason(pe);
    }
    const kp_event_t *tc = find(s.get(), "task-clock");
    ASSERT_NE(tc, nullptr);
    EXPECT_FALSE(kp_event_is_available(tc));
    EXPECT_EQ(kp_event_kind(tc), KP_EVENT_SOFTWARE);
    EXPECT_NE(std::string(kp_event_unavailable_reason(tc)).find("perf_event"), std::string::npos);
}

TEST_P(Chips, CountsFixedAndConfigurableEvents) {
    Sampler s = must_sampler();
    ASSERT_TRUE(s);
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles", "instructions", "branches", "l1d-load-misses",
                                       "branch-misses"}),
              KP_OK)
        << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    const kpsim_kernel_state st = kernel_state();
    EXPECT_NE(st.counting & KP_KPC_CLASS_CONFIGURABLE_MASK, 0u);
    EXPECT_EQ(st.counting, st.thread_counting);
    EXPECT_GE(st.config_words, 3u);
    uint64_t a[5] = {}, b[5] = {};
    burn(3);
    ASSERT_EQ(kp_thread_sample(t.get(), a, 5), KP_OK) << last_message();
    burn(6);
    ASSERT_EQ(kp_thread_sample(t.get(), b, 5), KP_OK) << last_message();
    for (int i = 0; i < 5; ++i) EXPECT_GT(b[i], a[i]) << "event " << i << " did not grow with work";
    // Each value is its own event's, on every generation's counter map.
    expect_sim_rates({"cycles", "instructions", "branches", "l1d-load-misses", "branch-misses"}, a);
    expect_sim_rates({"cycles", "instructions", "branches", "l1d-load-misses", "branch-misses"}, b);
    EXPECT_EQ(kp_thread_stop(t.get()), KP_OK);
}

INSTANTIATE_TEST_SUITE_P(AllDatabases, Chips, ::testing::ValuesIn(kChips),
                         [](const ::testing::TestParamInfo<ChipCase> &info) {
                             std::string n = info.param.db;
                             for (char &ch : n)
                                 if (ch == '-') ch = '_';
                             return n;
                         });

class UnknownChip : public KperfTest {
protected:
    const char *chip() const override { return "zz9"; }
};

TEST_F(UnknownChip, OpensWithGenericAndNativeNamesAndExplainsWhatIsMissing) {
    Sampler s = must_sampler();
    ASSERT_TRUE(s);
    EXPECT_STREQ(kp_sampler_cpu_id(s.get()), "zz9");
    EXPECT_NE(std::string(kp_sampler_pmu_name(s.get())).find("unknown"), std::string::npos);
    // Generic events resolve by the familiar names its database has: cycles is the
    // fixed counter; what it lacks (an instruction-TLB event) says the chip is unknown.
    const kp_event_t *cyc = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&cyc, s.get(), "cycles"), KP_OK);
    EXPECT_TRUE(kp_event_is_available(cyc));
    EXPECT_STREQ(kp_event_native_name(cyc), "FIXED_CYCLES");
    const kp_event_t *itlb = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&itlb, s.get(), "itlb-load-misses"), KP_OK);
    EXPECT_FALSE(kp_event_is_available(itlb));
    EXPECT_NE(std::string(kp_event_unavailable_reason(itlb)).find("unknown"), std::string::npos)
        << kp_event_unavailable_reason(itlb);
    Thread t;
    EXPECT_EQ(new_thread(&t, s.get(), {"itlb-load-misses"}), KP_EUNAVAILABLE);
    EXPECT_NE(last_message().find("unknown"), std::string::npos) << last_message();
    const kp_event_t *pcyc = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&pcyc, s.get(), "p-cycles"), KP_OK);
    EXPECT_FALSE(kp_event_is_available(pcyc));
    EXPECT_NE(std::string(kp_event_unavailable_reason(pcyc)).find("KPC_BACKEND=recount"),
              std::string::npos)
        << kp_event_unavailable_reason(pcyc);

    // Its native events count.
    const char *native = nullptr;
    for (size_t i = 0; i < kp_sampler_event_count(s.get()) && !native; ++i) {
        const kp_event_t *e = kp_sampler_event_at(s.get(), i);
        if (!kp_event_is_generic(e) && kp_event_is_available(e)) native = kp_event_name(e);
    }
    ASSERT_NE(native, nullptr) << "the unknown database lists no event";
    ASSERT_EQ(new_thread(&t, s.get(), {native}), KP_OK) << native << ": " << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK) << last_message();
    burn(3);
    uint64_t v = 0;
    ASSERT_EQ(kp_thread_sample(t.get(), &v, 1), KP_OK) << last_message();
    EXPECT_GT(v, 0u) << native;
}


}  // namespace
}  // namespace kperf_test
