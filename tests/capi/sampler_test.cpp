// kpc/sampler.h through the public header only (perf_event backend; CTest sets KPC_BACKEND).
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Sampler {
    kp_sampler_t *s = nullptr;
    Sampler() { EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message(); }
    ~Sampler() { kp_sampler_free(s); }
};

// Sets an environment variable for one scope.
struct ScopedEnv {
    std::string name;
    std::string old;
    bool had;
    ScopedEnv(const char *n, const char *v) : name(n) {
        const char *o = std::getenv(n);
        had = o != nullptr;
        if (had) old = o;
        setenv(n, v, 1);
    }
    ~ScopedEnv() {
        if (had) setenv(name.c_str(), old.c_str(), 1);
        else unsetenv(name.c_str());
    }
};

bool contains(const char *haystack, const char *needle) {
    return haystack && std::strstr(haystack, needle) != nullptr;
}

}  // namespace

TEST(SamplerOptions, InitSetsDefaults) {
    kp_sampler_options_t o;
    std::memset(&o, 0xAB, sizeof o);
    ASSERT_EQ(kp_sampler_options_init(&o, KP_SAMPLER_OPTIONS_VERSION), KP_OK);
    EXPECT_EQ(o.version, (unsigned)KP_SAMPLER_OPTIONS_VERSION);
    EXPECT_EQ(o.backend, KP_BACKEND_AUTO);
    EXPECT_EQ(o.kperf_path, nullptr);
    EXPECT_EQ(o.kperfdata_path, nullptr);
}

TEST(SamplerOptions, InitRejectsNullAndUnknownVersions) {
    kp_sampler_options_t o;
    EXPECT_EQ(kp_sampler_options_init(nullptr, KP_SAMPLER_OPTIONS_VERSION), KP_EINVAL);
    EXPECT_EQ(kp_sampler_options_init(&o, 0), KP_EINVAL);
    EXPECT_EQ(kp_sampler_options_init(&o, KP_SAMPLER_OPTIONS_VERSION + 1), KP_EINVAL);
    EXPECT_TRUE(contains(kp_error_last_message(), "version"));
}

TEST(SamplerNew, NullOutIsInvalid) { EXPECT_EQ(kp_sampler_new(nullptr, nullptr), KP_EINVAL); }

TEST(SamplerNew, BadOptionsAreRejectedAndOutIsCleared) {
    kp_sampler_options_t o;
    ASSERT_EQ(kp_sampler_options_init(&o, KP_SAMPLER_OPTIONS_VERSION), KP_OK);
    kp_sampler_t *s = reinterpret_cast<kp_sampler_t *>(0x1);
    o.version = 99;
    EXPECT_EQ(kp_sampler_new(&s, &o), KP_EINVAL);
    EXPECT_EQ(s, nullptr);
    o.version = KP_SAMPLER_OPTIONS_VERSION;
    o.backend = static_cast<kp_backend_t>(42);
    EXPECT_EQ(kp_sampler_new(&s, &o), KP_EINVAL);
    EXPECT_TRUE(contains(kp_error_last_message(), "backend"));
}

TEST(SamplerNew, ExplicitPerfEventBackend) {
    kp_sampler_options_t o;
    kp_sampler_options_init(&o, KP_SAMPLER_OPTIONS_VERSION);
    o.backend = KP_BACKEND_PERF_EVENT;
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, &o), KP_OK);
    EXPECT_EQ(kp_sampler_backend(s), KP_BACKEND_PERF_EVENT);
    EXPECT_STREQ(kp_sampler_backend_name(s), "perf_event");
    kp_sampler_free(s);
}

TEST(SamplerNew, EnvironmentChoosesBackendWhenOptionsDoNot) {
    ScopedEnv env("KPC_BACKEND", "nonsense");
    kp_sampler_t *s = nullptr;
    EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_EINVAL);
    EXPECT_TRUE(contains(kp_error_last_message(), "KPC_BACKEND"));
    // An explicit option wins over the environment.
    kp_sampler_options_t o;
    kp_sampler_options_init(&o, KP_SAMPLER_OPTIONS_VERSION);
    o.backend = KP_BACKEND_PERF_EVENT;
    ASSERT_EQ(kp_sampler_new(&s, &o), KP_OK);
    kp_sampler_free(s);
}

TEST(SamplerNew, KperfWithMissingFrameworkSaysWhatToDo) {
    kp_sampler_options_t o;
    kp_sampler_options_init(&o, KP_SAMPLER_OPTIONS_VERSION);
    o.backend = KP_BACKEND_KPERF;
    o.kperf_path = "/nonexistent/kperf.framework/kperf";
    o.kperfdata_path = "/nonexistent/kperfdata.framework/kperfdata";
    kp_sampler_t *s = nullptr;
    EXPECT_EQ(kp_sampler_new(&s, &o), KP_ELOAD);
    EXPECT_EQ(s, nullptr);
    EXPECT_TRUE(contains(kp_error_last_message(), "/nonexistent/kperf.framework/kperf"))
        << kp_error_last_message();
}

TEST(SamplerQueries, NullSamplerIsHarmless) {
    kp_sampler_free(nullptr);
    EXPECT_EQ(kp_sampler_backend(nullptr), -1);
    EXPECT_EQ(kp_sampler_backend_name(nullptr), nullptr);
    EXPECT_EQ(kp_sampler_cpu_id(nullptr), nullptr);
    EXPECT_EQ(kp_sampler_cpu_name(nullptr), nullptr);
    EXPECT_EQ(kp_sampler_pmu_name(nullptr), nullptr);
    EXPECT_EQ(kp_sampler_counter_count(nullptr, nullptr, nullptr), KP_EINVAL);
    EXPECT_EQ(kp_sampler_access(nullptr), KP_EINVAL);
    EXPECT_EQ(kp_sampler_event_count(nullptr), 0u);
    EXPECT_EQ(kp_sampler_event_at(nullptr, 0), nullptr);
    EXPECT_EQ(kp_sampler_release(nullptr), KP_EINVAL);
    const kp_event_t *e = nullptr;
    EXPECT_EQ(kp_sampler_event_find(&e, nullptr, "task-clock"), KP_EINVAL);
}

TEST(SamplerQueries, IdentifiesCpuAndCounters) {
    Sampler s;
    EXPECT_GT(std::strlen(kp_sampler_cpu_id(s.s)), 0u);
    EXPECT_GT(std::strlen(kp_sampler_cpu_name(s.s)), 0u);
    EXPECT_GT(std::strlen(kp_sampler_pmu_name(s.s)), 0u);
    uint32_t fixed = 99, conf = 99;
    EXPECT_EQ(kp_sampler_counter_count(&fixed, &conf, s.s), KP_OK);
    EXPECT_EQ(kp_sampler_counter_count(nullptr, nullptr, s.s), KP_OK);
    if (std::strcmp(kp_sampler_pmu_name(s.s), "none") == 0) {
        EXPECT_EQ(fixed, 0u);
        EXPECT_EQ(conf, 0u);
    }
}

TEST(SamplerQueries, AccessAgreesWithHardwareAvailability) {
    Sampler s;
    const kp_event_t *cycles = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&cycles, s.s, "cycles"), KP_OK);
    int rc = kp_sampler_access(s.s);
    if (kp_event_is_available(cycles)) {
        EXPECT_TRUE(rc == KP_OK || rc == KP_EPERM) << kp_error_last_message();
    } else {
        EXPECT_EQ(rc, KP_EUNSUPPORTED);
        EXPECT_TRUE(contains(kp_error_last_message(), "PMU")) << kp_error_last_message();
    }
}

TEST(SamplerEvents, EnumerationMatchesLookup) {
    Sampler s;
    size_t n = kp_sampler_event_count(s.s);
    ASSERT_GE(n, 25u);  // at least every generic event
    for (size_t i = 0; i < n; ++i) {
        const kp_event_t *e = kp_sampler_event_at(s.s, i);
        ASSERT_NE(e, nullptr);
        const kp_event_t *found = nullptr;
        ASSERT_EQ(kp_sampler_event_find(&found, s.s, kp_event_name(e)), KP_OK);
        EXPECT_EQ(found, e) << kp_event_name(e);
    }
    EXPECT_EQ(kp_sampler_event_at(s.s, n), nullptr);
}

TEST(SamplerEvents, UnknownNameSuggestsCloseOnes) {
    Sampler s;
    const kp_event_t *e = reinterpret_cast<const kp_event_t *>(0x1);
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, "task-clok"), KP_EUNKNOWN_EVENT);
    EXPECT_EQ(e, nullptr);
    EXPECT_TRUE(contains(kp_error_last_message(), "task-clock")) << kp_error_last_message();
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, ""), KP_EUNKNOWN_EVENT);
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, nullptr), KP_EINVAL);
    EXPECT_EQ(kp_sampler_event_find(nullptr, s.s, "task-clock"), KP_EINVAL);
}

TEST(SamplerEvents, RawCodesAreAddedToTheDatabase) {
    Sampler s;
    size_t before = kp_sampler_event_count(s.s);
    const kp_event_t *e = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&e, s.s, "r00c0"), KP_OK);
    EXPECT_STREQ(kp_event_name(e), "r00c0");
    EXPECT_EQ(kp_event_selector(e), 0xc0u);
    EXPECT_EQ(kp_event_is_generic(e), 0);
    EXPECT_EQ(kp_sampler_event_count(s.s), before + 1);
    const kp_event_t *again = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&again, s.s, "r00c0"), KP_OK);
    EXPECT_EQ(again, e);
    EXPECT_EQ(kp_sampler_event_count(s.s), before + 1);
}

TEST(SamplerEvents, MalformedRawCodesAreRejected) {
    Sampler s;
    const kp_event_t *e = nullptr;
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, "r00g0"), KP_EUNKNOWN_EVENT);
    EXPECT_TRUE(contains(kp_error_last_message(), "hex")) << kp_error_last_message();
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, "r12345678901234567"), KP_EUNKNOWN_EVENT);
}

TEST(SamplerRelease, KeepsDatabaseButRefusesCounting) {
    Sampler s;
    ASSERT_EQ(kp_sampler_release(s.s), KP_OK);
    EXPECT_EQ(kp_sampler_release(s.s), KP_OK);  // idempotent
    EXPECT_GT(kp_sampler_event_count(s.s), 0u);
    const kp_event_t *e = nullptr;
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, "task-clock"), KP_OK);
    EXPECT_EQ(kp_sampler_access(s.s), KP_ESTATE);
    const char *names[] = {"task-clock"};
    kp_thread_t *t = nullptr;
    EXPECT_EQ(kp_thread_new(&t, s.s, names, 1), KP_ESTATE);
    EXPECT_TRUE(contains(kp_error_last_message(), "released"));
}
