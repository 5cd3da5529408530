// kpc/event.h accessors.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstring>
#include <string>

TEST(Event, NullIsHarmless) {
    EXPECT_EQ(kp_event_name(nullptr), nullptr);
    EXPECT_EQ(kp_event_native_name(nullptr), nullptr);
    EXPECT_EQ(kp_event_description(nullptr), nullptr);
    EXPECT_EQ(kp_event_kind(nullptr), -1);
    EXPECT_EQ(kp_event_unit(nullptr), -1);
    EXPECT_EQ(kp_event_is_generic(nullptr), 0);
    EXPECT_EQ(kp_event_is_available(nullptr), 0);
    EXPECT_EQ(kp_event_unavailable_reason(nullptr), nullptr);
    EXPECT_EQ(kp_event_alias(nullptr), nullptr);
    EXPECT_EQ(kp_event_errata(nullptr), nullptr);
    EXPECT_EQ(kp_event_fallback(nullptr), nullptr);
    EXPECT_EQ(kp_event_counters_mask(nullptr), 0u);
    EXPECT_EQ(kp_event_selector(nullptr), 0u);
    EXPECT_EQ(kp_event_fixed_counter(nullptr), -1);
}

TEST(Event, GenericEventsAreDescribedConsistently) {
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK);
    const char *generic[] = {"cycles", "instructions", "branches", "branch-misses", "cache-references",
                             "cache-misses", "l1d-load-misses", "l1d-store-misses", "l1i-load-misses",
                             "dtlb-load-misses", "itlb-load-misses", "stalled-cycles-frontend",
                             "stalled-cycles-backend", "ref-cycles", "p-cycles", "e-cycles",
                             "p-instructions", "e-instructions", "task-clock", "cpu-clock",
                             "page-faults", "minor-faults", "major-faults", "context-switches",
                             "cpu-migrations"};
    for (const char *name : generic) {
        const kp_event_t *e = nullptr;
        ASSERT_EQ(kp_sampler_event_find(&e, s, name), KP_OK) << name;
        EXPECT_STREQ(kp_event_name(e), name);
        EXPECT_EQ(kp_event_is_generic(e), 1) << name;
        EXPECT_GT(std::strlen(kp_event_native_name(e)), 0u) << name;
        EXPECT_GT(std::strlen(kp_event_description(e)), 0u) << name;
        bool sw = std::string(name).find("clock") != std::string::npos ||
                  std::string(name).find("faults") != std::string::npos ||
                  std::string(name) == "context-switches" || std::string(name) == "cpu-migrations";
        EXPECT_EQ(kp_event_kind(e), sw ? KP_EVENT_SOFTWARE : KP_EVENT_CONFIGURABLE) << name;
        // Only the two clocks count time; every other generic event counts occurrences.
        bool clock = std::string(name) == "task-clock" || std::string(name) == "cpu-clock";
        EXPECT_EQ(kp_event_unit(e), clock ? KP_EVENT_UNIT_NANOSECONDS : KP_EVENT_UNIT_COUNT) << name;
        // Unavailable events always say why; available ones never carry a reason.
        EXPECT_EQ(kp_event_is_available(e) == 0, std::strlen(kp_event_unavailable_reason(e)) > 0) << name;
        if (sw) EXPECT_EQ(kp_event_is_available(e), 1) << name << ": " << kp_event_unavailable_reason(e);
        // Apple-only attributes are absent on perf_event.
        EXPECT_EQ(kp_event_alias(e), nullptr);
        EXPECT_EQ(kp_event_fixed_counter(e), -1);
    }
    kp_sampler_free(s);
}
