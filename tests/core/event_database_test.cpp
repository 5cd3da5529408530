#include "core/event_database.hpp"

#include <gtest/gtest.h>

using kpc::Event;
using kpc::EventDatabase;

namespace {
Event named(const char *n) {
    Event e;
    e.name = n;
    e.native_name = n;
    return e;
}
}  // namespace

TEST(EventDatabase, AddFindAndIndex) {
    EventDatabase db;
    const Event *a = db.add(named("alpha"));
    const Event *b = db.add(named("beta"));
    EXPECT_EQ(db.size(), 2u);
    EXPECT_EQ(db.find("alpha"), a);
    EXPECT_EQ(db.find("beta"), b);
    EXPECT_EQ(db.find("gamma"), nullptr);
    EXPECT_EQ(db.at(0), a);
    EXPECT_EQ(db.at(1), b);
    EXPECT_EQ(db.at(2), nullptr);
}

TEST(EventDatabase, FirstDefinitionOfANameWins) {
    EventDatabase db;
    Event first = named("x");
    first.description = "first";
    Event second = named("x");
    second.description = "second";
    const Event *p = db.add(first);
    EXPECT_EQ(db.add(second), p);
    EXPECT_EQ(db.size(), 1u);
    EXPECT_EQ(db.find("x")->description, "first");
}

TEST(EventDatabase, PointersStayValidAsItGrows) {
    EventDatabase db;
    const Event *first = db.add(named("e0"));
    for (int i = 1; i < 5000; ++i) db.add(named(("e" + std::to_string(i)).c_str()));
    EXPECT_EQ(first, db.find("e0"));
    EXPECT_EQ(first->name, "e0");
}

TEST(EventDatabase, SuggestsCloseNames) {
    EventDatabase db;
    db.add(named("task-clock"));
    db.add(named("page-faults"));
    db.add(named("L1D_CACHE_MISS_LD"));
    EXPECT_NE(db.suggest("task-clok").find("task-clock"), std::string::npos);
    EXPECT_NE(db.suggest("l1d_cache_miss").find("L1D_CACHE_MISS_LD"), std::string::npos);
    EXPECT_EQ(db.suggest("zzzzzzzzzzzz"), "");
}
