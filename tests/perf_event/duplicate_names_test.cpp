// One counter under two names in one kp_thread_t is an error (issue 8, section 1, item 3),
// and raw codes are one event however they are spelled, in a database that stays bounded.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr size_t kMaxLookedUpEvents = 4096;  // documented in kpc/sampler.h

class DuplicateNames : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message(); }
    void TearDown() override { kp_sampler_free(s); }
    int make(std::vector<const char *> names) {
        kp_thread_t *t = nullptr;
        int rc = kp_thread_new(&t, s, names.data(), names.size());
        kp_thread_free(t);
        return rc;
    }
    kp_sampler_t *s = nullptr;
};

std::string last() { return kp_error_last_message(); }

bool names_both(const std::string &msg, const char *a, const char *b) {
    return msg.find(std::string("'") + a + "'") != std::string::npos &&
           msg.find(std::string("'") + b + "'") != std::string::npos &&
           msg.find("same counter") != std::string::npos;
}

}  // namespace

TEST_F(DuplicateNames, RawCodesSpelledDifferentlyAreTheSameCounter) {
    // Raw hardware codes cannot be opened without a PMU: KP_EINVAL, not KP_EUNAVAILABLE,
    // shows the duplicate is found before availability.
    EXPECT_EQ(make({"r1", "r01"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last(), "r1", "r01")) << last();
    EXPECT_EQ(make({"r0000000000000001", "task-clock", "r1"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last(), "r0000000000000001", "r1")) << last();
    EXPECT_EQ(make({"r00c0", "r00C0"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last(), "r00c0", "r00C0")) << last();
    // The same spelling twice keeps its own message.
    EXPECT_EQ(make({"r1", "r1"}), KP_EINVAL);
    EXPECT_NE(last().find("listed twice"), std::string::npos) << last();
}

TEST_F(DuplicateNames, RawSpellingsShareOneDatabaseEntry) {
    const size_t before = kp_sampler_event_count(s);
    const kp_event_t *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&a, s, "r1"), KP_OK) << last();
    ASSERT_EQ(kp_sampler_event_find(&b, s, "r01"), KP_OK) << last();
    ASSERT_EQ(kp_sampler_event_find(&c, s, "r0000000000000001"), KP_OK) << last();
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, c);
    EXPECT_EQ(kp_sampler_event_count(s), before + 1);
    EXPECT_STREQ(kp_event_name(a), "r1");  // named by the first spelling looked up
    ASSERT_EQ(kp_sampler_event_find(&d, s, "r2"), KP_OK) << last();
    EXPECT_NE(a, d);
    EXPECT_EQ(kp_sampler_event_count(s), before + 2);
}

TEST_F(DuplicateNames, LookingUpManyDistinctNamesDoesNotGrowTheDatabaseWithoutBound) {
    const size_t before = kp_sampler_event_count(s);
    const kp_event_t *first = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&first, s, "r10000"), KP_OK) << last();
    int ok = 0, full = 0, other = 0;
    std::string full_message;
    char name[32];
    for (unsigned i = 0; i < 100000; ++i) {
        std::snprintf(name, sizeof name, "r%x", 0x10000 + i);
        const kp_event_t *e = nullptr;
        int rc = kp_sampler_event_find(&e, s, name);
        if (rc == KP_OK) {
            ++ok;
        } else if (rc == KP_ENOMEM) {
            ++full;
            full_message = last();
        } else {
            ++other;
        }
    }
    const size_t grown = kp_sampler_event_count(s) - before;
    EXPECT_LE(grown, kMaxLookedUpEvents);
    EXPECT_EQ(static_cast<size_t>(ok), grown);  // every success was one entry, "r10000" once
    EXPECT_EQ(other, 0);
    EXPECT_GT(full, 0);
    EXPECT_NE(full_message.find("new sampler"), std::string::npos) << full_message;
    // What the database holds stays reachable, under any spelling.
    const kp_event_t *again = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&again, s, "r0010000"), KP_OK) << last();
    EXPECT_EQ(again, first);
    // Listed events are never refused.
    ASSERT_EQ(kp_sampler_event_find(&again, s, "task-clock"), KP_OK) << last();
}

TEST_F(DuplicateNames, GenericAndLibpfmNameOfOneCounter) {
#if !KPC_TEST_HAVE_LIBPFM
    GTEST_SKIP() << "libkpc was built without libpfm4 (install libpfm4-dev): no native names "
                    "for generic events to compare";
#else
    EXPECT_EQ(make({"task-clock", "PERF_COUNT_SW_TASK_CLOCK"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last(), "task-clock", "PERF_COUNT_SW_TASK_CLOCK")) << last();
    EXPECT_NE(last().find("list it once"), std::string::npos) << last();
    EXPECT_EQ(make({"perf::PERF_COUNT_SW_PAGE_FAULTS", "page-faults"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last(), "perf::PERF_COUNT_SW_PAGE_FAULTS", "page-faults")) << last();
    // Before availability: cycles cannot be counted without a PMU, yet the duplicate wins.
    EXPECT_EQ(make({"cycles", "PERF_COUNT_HW_CPU_CYCLES"}), KP_EINVAL);
    EXPECT_TRUE(names_both(last(), "cycles", "PERF_COUNT_HW_CPU_CYCLES")) << last();
    // Different counters are still fine together.
    EXPECT_EQ(make({"task-clock", "PERF_COUNT_SW_PAGE_FAULTS"}), KP_OK) << last();
#endif
}
