// The recount backend's pure parts: macOS version rules, where each event lies in the
// kernel's words for every kind and perf-level order, tick conversion, and the macOS
// auto rule (choose_apple_backend).
#include <gtest/gtest.h>

#include "backends/apple/libsystem.hpp"
#include "backends/apple/macos_version.hpp"
#include "backends/recount/recount_abi.hpp"
#include "backends/recount/recount_events.hpp"
#include "core/backend.hpp"

namespace rc = kpc::recount;
namespace apple = kpc::apple;

namespace {

const rc::EventSpec &spec(const char *name) {
    const rc::EventSpec *e = rc::find_recount_event(name);
    EXPECT_NE(e, nullptr) << name;
    return *e;
}

// The words a slot list names, sorted, without the zero slot.
std::vector<int> words(const rc::Slots &s) {
    std::vector<int> out;
    for (uint8_t w : s)
        if (w != rc::kZeroSlot) out.push_back(w);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(RecountVersion, ParsesProductVersions) {
    EXPECT_EQ(apple::parse_product_version("15.5").text(), "15.5");
    EXPECT_EQ(apple::parse_product_version("14.2.1").text(), "14.2");
    EXPECT_EQ(apple::parse_product_version("26").text(), "26.0");
    EXPECT_FALSE(apple::parse_product_version("").known());
    EXPECT_FALSE(apple::parse_product_version("x15.5").known());
    EXPECT_FALSE(apple::parse_product_version("15.x").known());
}

TEST(RecountVersion, MapsDarwinReleasesToMacos) {
    EXPECT_EQ(apple::from_darwin_release("24.5.0").text(), "15.5");
    EXPECT_EQ(apple::from_darwin_release("23.2.0").text(), "14.2");
    EXPECT_EQ(apple::from_darwin_release("23.1.0").text(), "14.1");
    EXPECT_EQ(apple::from_darwin_release("22.1.0").text(), "13.0");  // Darwin 22.1 is macOS 13.0
    EXPECT_EQ(apple::from_darwin_release("21.4.0").text(), "12.3");
    EXPECT_FALSE(apple::from_darwin_release("19.6.0").known());
}

TEST(RecountVersion, KindsAndOrderByVersion) {
    EXPECT_FALSE(apple::has_recount_kinds(apple::parse_product_version("12.7")));
    EXPECT_TRUE(apple::has_recount_kinds(apple::parse_product_version("13.0")));
    EXPECT_TRUE(apple::efficiency_entry_first(apple::parse_product_version("13.0")));
    EXPECT_TRUE(apple::efficiency_entry_first(apple::parse_product_version("14.1")));
    EXPECT_FALSE(apple::efficiency_entry_first(apple::parse_product_version("14.2")));
    EXPECT_FALSE(apple::efficiency_entry_first(apple::parse_product_version("15.5")));
}

TEST(RecountSlots, KindIsTheSmallestThatHoldsTheEvents) {
    rc::ThreadLayout l;
    EXPECT_EQ(l.kind(), rc::kThscCpi);
    EXPECT_EQ(l.words(), 2u);
    l.per_level = true;
    EXPECT_EQ(l.kind(), rc::kThscCpiPerPerfLevel);
    EXPECT_EQ(l.words(), 4u);
    l.with_times = true;
    EXPECT_EQ(l.kind(), rc::kThscTimeCpiPerPerfLevel);
    EXPECT_EQ(l.words(), 8u);
    l.per_level = false;
    EXPECT_EQ(l.kind(), rc::kThscTimeCpi);
    EXPECT_EQ(l.words(), 4u);
}

TEST(RecountSlots, TotalsSumBothEntries) {
    rc::ThreadLayout l;
    EXPECT_EQ(words(rc::thread_slots(spec("cycles"), l)), (std::vector<int>{1}));
    l.per_level = true;
    EXPECT_EQ(words(rc::thread_slots(spec("cycles"), l)), (std::vector<int>{1, 3}));
    EXPECT_EQ(words(rc::thread_slots(spec("instructions"), l)), (std::vector<int>{0, 2}));
    l.with_times = true;
    EXPECT_EQ(words(rc::thread_slots(spec("task-clock"), l)), (std::vector<int>{2, 3, 6, 7}));
    EXPECT_EQ(words(rc::thread_slots(spec("user-time"), l)), (std::vector<int>{2, 6}));
}

TEST(RecountSlots, PerformanceAndEfficiencyFollowTheOrder) {
    rc::ThreadLayout l;
    l.per_level = true;
    l.efficiency_first = false;  // 14.2+: [P, E]
    EXPECT_EQ(words(rc::thread_slots(spec("p-cycles"), l)), (std::vector<int>{1}));
    EXPECT_EQ(words(rc::thread_slots(spec("e-cycles"), l)), (std::vector<int>{3}));
    l.efficiency_first = true;  // 13.0-14.1: [E, P]
    EXPECT_EQ(words(rc::thread_slots(spec("p-cycles"), l)), (std::vector<int>{3}));
    EXPECT_EQ(words(rc::thread_slots(spec("e-cycles"), l)), (std::vector<int>{1}));
    l.with_times = true;
    EXPECT_EQ(words(rc::thread_slots(spec("p-instructions"), l)), (std::vector<int>{4}));
    EXPECT_EQ(words(rc::thread_slots(spec("e-instructions"), l)), (std::vector<int>{0}));
}

TEST(RecountSlots, OneLevelPutsEverythingOnP) {
    rc::ThreadLayout l;
    l.per_level = true;
    l.levels = 1;
    for (bool e_first : {false, true}) {
        l.efficiency_first = e_first;
        EXPECT_EQ(words(rc::thread_slots(spec("p-cycles"), l)), (std::vector<int>{1, 3}));
        EXPECT_TRUE(words(rc::thread_slots(spec("e-cycles"), l)).empty());
    }
}

TEST(RecountTicks, ConvertWithoutOverflow) {
    EXPECT_EQ(apple::ticks_to_ns(3, {125, 3}), 125u);
    EXPECT_EQ(apple::ticks_to_ns(24000000, {125, 3}), 1000000000u);
    EXPECT_EQ(apple::ticks_to_ns(7, {1, 1}), 7u);
    const uint64_t big = UINT64_MAX / 100;  // ticks * 125 would overflow
    EXPECT_EQ(apple::ticks_to_ns(big, {125, 3}), big / 3 * 125 + big % 3 * 125 / 3);
}

TEST(AutoChoice, RootPicksKperf) {
    kpc::AutoChoice c = kpc::choose_apple_backend(KP_OK, "");
    EXPECT_EQ(c.backend, KP_BACKEND_KPERF);
}

TEST(AutoChoice, NotRootPicksRecountAndSaysWhy) {
    kpc::AutoChoice c = kpc::choose_apple_backend(KP_EPERM, "kperf: permission denied");
    EXPECT_EQ(c.backend, KP_BACKEND_RECOUNT);
    EXPECT_EQ(c.reason, "not root: counting cycles and instructions per thread without root; "
                        "run with sudo for all events");
}

TEST(AutoChoice, KperfUnusablePicksRecountWithKperfsReason) {
    kpc::AutoChoice c = kpc::choose_apple_backend(KP_EBUSY, "another tool holds the counters");
    EXPECT_EQ(c.backend, KP_BACKEND_RECOUNT);
    EXPECT_NE(c.reason.find("another tool holds the counters"), std::string::npos) << c.reason;
}
