// Unit tests of the kperf backend's internals that the simulator cannot reach: event
// layouts it does not offer (any stride but 48 and 56) and exhaustive placement checks.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backends/kperf/kpep_layout.hpp"
#include "backends/kperf/placement.hpp"
#include "core/error.hpp"

namespace {

using kpc::kperf::DbView;
using kpc::kperf::read_database;

// A fake kperfdata whose events sit `stride` bytes apart in one buffer.
struct FakeDb {
    std::vector<unsigned char> storage;
    std::vector<kp_kpep_event_t *> events;
    kp_kpep_db_t db{};
};
FakeDb *g_fake = nullptr;

int fake_events_count(kp_kpep_db_t *, size_t *count) {
    *count = g_fake->events.size();
    return 0;
}
int fake_events(kp_kpep_db_t *, kp_kpep_event_t **buf, size_t size) {
    if (size < g_fake->events.size() * sizeof(void *)) return 4;
    std::memcpy(buf, g_fake->events.data(), g_fake->events.size() * sizeof(void *));
    return 0;
}

void build(FakeDb &f, size_t stride, size_t n) {
    f.storage.assign(stride * n + 64, 0);
    for (size_t i = 0; i < n; ++i) {
        auto *ev = reinterpret_cast<kp_kpep_event_t *>(f.storage.data() + i * stride);
        ev->name = "EVENT";
        ev->description = "an event";
        ev->mask = 0xE0;
        f.events.push_back(ev);
    }
    f.db.name = "fake";
    f.db.event_arr = n ? f.events[0] : nullptr;
    f.db.event_count = n;
}

kp_kperf_api_t fake_api() {
    kp_kperf_api_t api{};
    api.kpep_db_events_count = fake_events_count;
    api.kpep_db_events = fake_events;
    return api;  // no accessors: read_database falls back to the struct fields
}

int layout_status(size_t stride, size_t n, std::string *message) {
    FakeDb f;
    build(f, stride, n);
    g_fake = &f;
    kp_kperf_api_t api = fake_api();
    try {
        DbView v = read_database(api, &f.db);
        *message = "stride " + std::to_string(v.event_stride);
        return KP_OK;
    } catch (const kpc::Error &e) {
        *message = e.message();
        return e.status();
    }
}

TEST(KperfLayout, AcceptsTheTwoKnownStrides) {
    std::string msg;
    EXPECT_EQ(layout_status(56, 10, &msg), KP_OK);
    EXPECT_EQ(msg, "stride 56");
    EXPECT_EQ(layout_status(48, 10, &msg), KP_OK);
    EXPECT_EQ(msg, "stride 48");
}

TEST(KperfLayout, RefusesAnUnknownStrideSayingWhatItFound) {
    std::string msg;
    EXPECT_EQ(layout_status(64, 10, &msg), KP_ELAYOUT);
    EXPECT_NE(msg.find("64 bytes apart"), std::string::npos) << msg;
    EXPECT_NE(msg.find("56"), std::string::npos) << msg;
    EXPECT_NE(msg.find("48"), std::string::npos) << msg;
    EXPECT_EQ(layout_status(40, 10, &msg), KP_ELAYOUT);
}

TEST(KperfLayout, RefusesWhatCannotBeMeasured) {
    std::string msg;
    EXPECT_EQ(layout_status(56, 1, &msg), KP_ELAYOUT);
    EXPECT_NE(msg.find("single event"), std::string::npos) << msg;
}

TEST(KperfLayout, ReadsTheSelectorWidthOfEachLayout) {
    FakeDb f;
    build(f, 48, 3);
    auto *old = reinterpret_cast<kp_kpep_event_legacy_t *>(f.events[1]);
    old->number = 0xC5;
    old->umask = 0x77;  // would corrupt a 16-bit read
    old->is_fixed = 1;
    g_fake = &f;
    kp_kperf_api_t api = fake_api();
    DbView v = read_database(api, &f.db);
    ASSERT_EQ(v.event_stride, 48u);
    EXPECT_EQ(v.events[1].number, 0xC5);
    EXPECT_TRUE(v.events[1].fixed_flag);
    EXPECT_FALSE(v.events[0].fixed_flag);
    EXPECT_TRUE(v.db_fields_trusted);
}

// Brute force: is there an assignment of distinct counters within the masks?
bool feasible(const std::vector<uint32_t> &masks, size_t i, uint32_t used) {
    if (i == masks.size()) return true;
    for (int c = 0; c < 10; ++c)
        if ((masks[i] >> c & 1u) && !(used >> c & 1u) && feasible(masks, i + 1, used | 1u << c))
            return true;
    return false;
}

TEST(KperfPlacement, AgreesWithBruteForceAndIsOrderIndependent) {
    const uint32_t pool[] = {0x1, 0x2, 0x80, 0xE0, 0xFC, 0x3FC, 0x300, 0x84};
    std::mt19937 rng(12345);
    for (int round = 0; round < 2000; ++round) {
        size_t n = 1 + rng() % 9;
        std::vector<kpc::kperf::PlacementEvent> ev(n);
        std::vector<uint32_t> masks(n);
        for (size_t i = 0; i < n; ++i) {
            masks[i] = pool[rng() % (sizeof pool / sizeof pool[0])];
            ev[i] = {"E" + std::to_string(i), masks[i]};
        }
        auto p = kpc::kperf::place_events(ev, 0x3FF, 0x3);
        ASSERT_EQ(p.ok, feasible(masks, 0, 0)) << p.message;
        if (p.ok) {
            uint32_t used = 0;
            for (size_t i = 0; i < n; ++i) {
                ASSERT_TRUE(masks[i] >> p.counter[i] & 1u);
                ASSERT_FALSE(used >> p.counter[i] & 1u);
                used |= 1u << p.counter[i];
            }
            auto orders = kpc::kperf::kpep_add_orders(ev, p, 24);
            ASSERT_FALSE(orders.empty());
            for (const auto &o : orders) ASSERT_EQ(o.size(), n);
        } else {
            EXPECT_EQ(p.status, KP_ECONFLICT);
            EXPECT_NE(p.message.find("compete for counter"), std::string::npos) << p.message;
        }
    }
}

TEST(KperfPlacement, CounterListIsCompact) {
    EXPECT_EQ(kpc::kperf::counter_list(0xE0), "5-7");
    EXPECT_EQ(kpc::kperf::counter_list(0x60), "5, 6");
    EXPECT_EQ(kpc::kperf::counter_list(0x80), "7");
    EXPECT_EQ(kpc::kperf::counter_list(0x3FC), "2-9");
    EXPECT_EQ(kpc::kperf::counter_list(0x85), "0, 2, 7");
}

TEST(KperfPlacement, CounterMissingFromTheMachineIsUnavailable) {
    auto p = kpc::kperf::place_events({{"X", 0x800}}, 0x3FF, 0x3);
    EXPECT_FALSE(p.ok);
    EXPECT_EQ(p.status, KP_EUNAVAILABLE);
    EXPECT_NE(p.message.find("counter 11"), std::string::npos) << p.message;
}

}  // namespace
