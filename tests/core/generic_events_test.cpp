#include "core/generic_events.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

TEST(GenericEvents, CatalogueHasTheDocumentedNamesOnce) {
    size_t n = 0;
    const kpc::GenericEvent *all = kpc::generic_events(&n);
    ASSERT_EQ(n, 25u);
    std::set<std::string> names;
    size_t software = 0;
    for (size_t i = 0; i < n; ++i) {
        EXPECT_TRUE(names.insert(all[i].name).second) << all[i].name;
        EXPECT_GT(std::string(all[i].description).size(), 10u) << all[i].name;
        software += all[i].software;
        // Hardware first, then software: listings rely on that order.
        if (i > 0 && all[i - 1].software) EXPECT_TRUE(all[i].software) << all[i].name;
    }
    EXPECT_EQ(software, 7u);
    for (const char *want : {"cycles", "instructions", "branches", "branch-misses", "cache-references",
                             "cache-misses", "l1d-load-misses", "l1d-store-misses", "l1i-load-misses",
                             "dtlb-load-misses", "itlb-load-misses", "stalled-cycles-frontend",
                             "stalled-cycles-backend", "ref-cycles", "p-cycles", "e-cycles",
                             "p-instructions", "e-instructions", "task-clock", "cpu-clock",
                             "page-faults", "minor-faults", "major-faults", "context-switches",
                             "cpu-migrations"})
        EXPECT_NE(kpc::find_generic(want), nullptr) << want;
    EXPECT_EQ(kpc::find_generic("Cycles"), nullptr);  // names are case-sensitive
}
