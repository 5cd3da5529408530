// kpc stat's perf-stat habits in the argument parser: event groups in -e ({a,b}) and the
// CSV separator (-x), with the usage errors that name what is wrong.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/cli_error.hpp"

using namespace kpc_cli;

namespace {

struct Parsed {
    std::vector<std::string> names;
    std::vector<int> groups;
};

Parsed events_of(const std::vector<std::string> &lists) {
    Parsed p;
    int next_group = 0;
    for (const std::string &l : lists) add_event_list(l, p.names, p.groups, next_group, "stat");
    return p;
}

// The message of the UsageError that `list` raises, or "" if it parses.
std::string event_error(const std::string &list) {
    try {
        events_of({list});
    } catch (const UsageError &e) {
        EXPECT_EQ(e.topic(), "stat");
        return e.what();
    }
    return "";
}

Options parse(std::vector<const char *> words) {
    words.insert(words.begin(), "kpc");
    return parse_args(static_cast<int>(words.size()), words.data());
}

std::string usage_error(std::vector<const char *> words) {
    try {
        parse(std::move(words));
    } catch (const UsageError &e) {
        return e.what();
    }
    return "";
}

TEST(EventList, PlainNamesHaveNoGroup) {
    Parsed p = events_of({"task-clock,page-faults"});
    EXPECT_EQ(p.names, (std::vector<std::string>{"task-clock", "page-faults"}));
    EXPECT_EQ(p.groups, (std::vector<int>{-1, -1}));
}

TEST(EventList, GroupsAreNumberedInOrderAcrossLists) {
    Parsed p = events_of({"{cycles,instructions},page-faults", "{task-clock}", "x,{a,b,c}"});
    EXPECT_EQ(p.names, (std::vector<std::string>{"cycles", "instructions", "page-faults", "task-clock",
                                                 "x", "a", "b", "c"}));
    EXPECT_EQ(p.groups, (std::vector<int>{0, 0, -1, 1, -1, 2, 2, 2}));
}

TEST(EventList, AdjacentGroups) {
    Parsed p = events_of({"{a,b},{c,d}"});
    EXPECT_EQ(p.groups, (std::vector<int>{0, 0, 1, 1}));
}

TEST(EventList, ErrorsNameTheProblem) {
    EXPECT_NE(event_error("a,,b").find("empty event name"), std::string::npos);
    EXPECT_NE(event_error("").find("empty event name"), std::string::npos);
    EXPECT_NE(event_error("{a,}").find("empty event name"), std::string::npos);
    EXPECT_NE(event_error("{a},").find("empty event name"), std::string::npos);
    EXPECT_NE(event_error("{a,{b}}").find("cannot be nested"), std::string::npos);
    EXPECT_NE(event_error("{{a}}").find("cannot be nested"), std::string::npos);
    EXPECT_NE(event_error("{a,b").find("without its closing '}'"), std::string::npos);
    EXPECT_NE(event_error("a}").find("'}' without a '{'"), std::string::npos);
    EXPECT_NE(event_error("}").find("'}' without a '{'"), std::string::npos);
    EXPECT_NE(event_error("{}").find("empty group"), std::string::npos);
    EXPECT_NE(event_error("{a}:u").find("':' after a group's '}'"), std::string::npos);
    EXPECT_NE(event_error("{a}b").find("'b' after a group's '}'"), std::string::npos);
    EXPECT_NE(event_error("a{b}").find("'{' inside the event name 'a'"), std::string::npos);
    // The message quotes the list as given.
    EXPECT_EQ(event_error("{a,b").rfind("-e '{a,b' ", 0), 0u);
}

TEST(StatArgs, GroupsReachOptions) {
    Options o = parse({"stat", "-e", "{task-clock,page-faults}", "-e", "cycles", "true"});
    EXPECT_EQ(o.events, (std::vector<std::string>{"task-clock", "page-faults", "cycles"}));
    EXPECT_EQ(o.event_groups, (std::vector<int>{0, 0, -1}));
}

TEST(StatArgs, DefaultEventsHaveNoGroups) {
    Options o = parse({"stat", "true"});
    EXPECT_EQ(o.events, default_stat_events());
    EXPECT_EQ(o.event_groups, std::vector<int>(o.events.size(), -1));
    EXPECT_FALSE(o.csv_separator);
}

TEST(StatArgs, CsvSeparatorForms) {
    EXPECT_EQ(*parse({"stat", "-x", ",", "true"}).csv_separator, ",");
    EXPECT_EQ(*parse({"stat", "-x;", "true"}).csv_separator, ";");
    EXPECT_EQ(*parse({"stat", "--field-separator=::", "true"}).csv_separator, "::");
    EXPECT_EQ(*parse({"stat", "--field-separator", "\t", "true"}).csv_separator, "\t");
}

TEST(StatArgs, CsvRefusals) {
    EXPECT_NE(usage_error({"stat", "-x", "", "true"}).find("-x needs a separator"), std::string::npos);
    EXPECT_NE(usage_error({"stat", "-x", "a\nb", "true"}).find("newline"), std::string::npos);
    EXPECT_NE(usage_error({"stat", "-x", ",", "--json", "true"}).find("-x (CSV) and --json"),
              std::string::npos);
    EXPECT_NE(usage_error({"stat", "-j", "-x,", "true"}).find("-x (CSV) and --json"), std::string::npos);
    // -x belongs to stat.
    EXPECT_NE(usage_error({"info", "-x,"}).find("unknown option '-x,'"), std::string::npos);
}

}  // namespace
