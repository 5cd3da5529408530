// kpc diff's pieces: the strict JSON reader, the kpc-stat/1 loader, Welch's t-test and the
// comparison rules. Reference p-values come from scipy.stats.ttest_ind(equal_var=False) and
// scipy.stats.t.sf, computed once outside this repository.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cli/diff_compare.hpp"
#include "cli/json_reader.hpp"
#include "cli/run_stats.hpp"
#include "cli/diff_stat_file.hpp"
#include "cli/diff_welch_test.hpp"

using namespace kpc_cli;

namespace {

// ---- JSON reader ---------------------------------------------------------------------

std::string json_error(const std::string &text, const JsonLimits &limits = {}) {
    try {
        parse_json(text, limits);
    } catch (const JsonError &e) {
        return e.what();
    }
    return "";
}

TEST(DiffJson, ReadsEveryType) {
    JsonValue v = parse_json(R"( {"a": [1, -2.5e3, true, false, null], "b": "x\u00e9\ud83d\ude00\n"} )");
    ASSERT_TRUE(v.is(JsonValue::Type::object));
    const JsonValue *a = v.find("a");
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(a->array().size(), 5u);
    EXPECT_EQ(a->array()[1].number(), -2500);
    EXPECT_TRUE(a->array()[2].boolean());
    EXPECT_TRUE(a->array()[4].is(JsonValue::Type::null));
    EXPECT_EQ(v.find("b")->string(), "x\xc3\xa9\xf0\x9f\x98\x80\n");
    EXPECT_EQ(v.find("c"), nullptr);
}

TEST(DiffJson, RejectsMalformedInputWithItsPosition) {
    EXPECT_EQ(json_error("{\n  \"a\": 1,\n  \"a\": 2}"), "line 3, column 3: duplicate key \"a\"");
    EXPECT_NE(json_error("{\"a\": 1").find("unexpected end of input"), std::string::npos);
    EXPECT_NE(json_error("[1, 2").find("unexpected end of input"), std::string::npos);
    EXPECT_NE(json_error("\"abc").find("unexpected end of input"), std::string::npos);
    EXPECT_NE(json_error("").find("unexpected end of input"), std::string::npos);
    EXPECT_NE(json_error("{} {}").find("unexpected text after"), std::string::npos);
    EXPECT_NE(json_error("[01]").find("expected ',' or ']'"), std::string::npos);
    EXPECT_NE(json_error("[1.]").find("invalid number"), std::string::npos);
    EXPECT_NE(json_error("[1e400]").find("out of range"), std::string::npos);
    EXPECT_NE(json_error("[NaN]").find("unexpected character"), std::string::npos);
    EXPECT_NE(json_error("[tru]").find("invalid literal"), std::string::npos);
    EXPECT_NE(json_error("[\"\x01\"]").find("control character"), std::string::npos);
    EXPECT_NE(json_error("[\"\xc3\"]").find("invalid UTF-8"), std::string::npos);
    EXPECT_NE(json_error("[\"\xed\xa0\x80\"]").find("invalid UTF-8"), std::string::npos);
    EXPECT_NE(json_error("[\"\\ud800\"]").find("unpaired surrogate"), std::string::npos);
    EXPECT_NE(json_error("[\"\\x\"]").find("invalid escape"), std::string::npos);
    EXPECT_NE(json_error("{1: 2}").find("expected a string key"), std::string::npos);
}

TEST(DiffJson, BoundsDepthSizeAndValues) {
    std::string deep(100000, '[');
    EXPECT_NE(json_error(deep).find("nested deeper than 64"), std::string::npos);
    std::string ok_depth = std::string(64, '[') + std::string(64, ']');
    EXPECT_EQ(json_error(ok_depth), "");
    JsonLimits small;
    small.max_bytes = 10;
    EXPECT_NE(json_error("[1, 2, 3, 4, 5]", small).find("larger than 10 bytes"), std::string::npos);
    JsonLimits few;
    few.max_values = 3;
    EXPECT_NE(json_error("[1, 2, 3]", few).find("more than 3 values"), std::string::npos);
}

// ---- kpc-stat/1 files ------------------------------------------------------------------

std::string stat_json(const std::string &events, int runs = 3, const std::string &backend = "perf_event") {
    return R"({"schema": "kpc-stat/1", "backend": ")" + backend +
           R"(", "scope": "process", "cpu": {"id": "cpu-1"}, "command": ["w"], "runs": )" +
           std::to_string(runs) + R"(, "interrupted": false, "events": [)" + events + "]}";
}

std::string counted(const std::string &name, const std::string &values) {
    return R"({"name": ")" + name + R"(", "status": "counted", "unit": "", "value": {"values": [)" +
           values + "]}}";
}

const std::string kUnsupported =
    R"({"name": "cycles", "status": "not_supported", "unit": "", "value": null})";

std::string load_error(const std::string &text) {
    try {
        parse_stat_result(text, "f.json");
    } catch (const DiffInputError &e) {
        return e.what();
    }
    return "";
}

TEST(DiffStatFile, ReadsCountedAndUncountedEvents) {
    StatResultFile f = parse_stat_result(stat_json(counted("page-faults", "10, 11, 12") + "," + kUnsupported), "f.json");
    EXPECT_EQ(f.backend, "perf_event");
    EXPECT_EQ(f.runs, 3u);
    ASSERT_EQ(f.events.size(), 2u);
    EXPECT_EQ(f.events[0].values, (std::vector<double>{10, 11, 12}));
    EXPECT_EQ(f.events[1].status, "not_supported");
    EXPECT_TRUE(f.events[1].values.empty());
}

TEST(DiffStatFile, RejectsWhatDoesNotMatchTheSchema) {
    EXPECT_NE(load_error("[]").find("not a kpc stat --json result"), std::string::npos);
    EXPECT_NE(load_error("{\"schema\": \"kpc-info/1\"}").find("is not kpc-stat/1"), std::string::npos);
    EXPECT_NE(load_error("{\"schema\": \"kpc-stat/1\"}").find("has no \"backend\""), std::string::npos);
    EXPECT_NE(load_error(stat_json(counted("x", "1, 2"))).find("has 2 values for 3 runs"), std::string::npos);
    EXPECT_NE(load_error(stat_json(counted("x", "1, -2, 3"))).find("not a count"), std::string::npos);
    EXPECT_NE(load_error(stat_json(counted("x", "1, 2, 1e30"))).find("not a count"), std::string::npos);
    EXPECT_NE(load_error(stat_json(counted("x", "1, \"2\", 3"))).find("not a count"), std::string::npos);
    EXPECT_NE(load_error(stat_json(counted("a\\u001b[31m", "1, 2, 3"))).find("not printable ASCII"),
              std::string::npos);
    EXPECT_NE(load_error(stat_json(counted("x", "1,2,3"), -1)).find("whole number"), std::string::npos);
    std::string fractional_runs = stat_json(counted("x", "1,2,3"));
    fractional_runs.replace(fractional_runs.find("\"runs\": 3"), 9, "\"runs\": 2.5");
    EXPECT_NE(load_error(fractional_runs).find("whole number"), std::string::npos) << load_error(fractional_runs);
    std::string bad_status = R"({"name": "x", "status": "maybe", "unit": ""})";
    EXPECT_NE(load_error(stat_json(bad_status)).find("unknown status"), std::string::npos);
    EXPECT_NE(load_error(stat_json(counted("x", "1,2,3")).substr(0, 60)).find("not valid JSON"), std::string::npos);
}

// ---- Welch's t-test ----------------------------------------------------------------

TEST(DiffWelch, StudentTMatchesReferenceValues) {
    EXPECT_NEAR(student_t_two_sided_p(2.228, 10), 0.05001177181711132, 1e-9);
    EXPECT_NEAR(student_t_two_sided_p(1.0, 1), 0.5, 1e-12);
    EXPECT_NEAR(student_t_two_sided_p(50, 3), 1.761715204127197e-05, 1e-12);
    EXPECT_NEAR(student_t_two_sided_p(0.3, 1000), 0.7642395041672441, 1e-9);
    EXPECT_NEAR(student_t_two_sided_p(-2.228, 10), 0.05001177181711132, 1e-9);
    EXPECT_EQ(student_t_two_sided_p(0, 5), 1.0);
}

TEST(DiffWelch, MatchesScipyOnUnequalVariances) {
    auto r = welch_t_test(summarize({1, 2, 3, 4, 5}), summarize({3, 4, 5, 6, 7}));
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->t, 2.0, 1e-12);
    EXPECT_NEAR(r->degrees_of_freedom, 8.0, 1e-12);
    EXPECT_NEAR(r->p_value, 0.08051623795726262, 1e-9);
    r = welch_t_test(summarize({104, 103, 107, 105}), summarize({100, 101, 103, 99, 102, 100}));
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->t, -3.7510083569978288, 1e-9);
    EXPECT_NEAR(r->degrees_of_freedom, 5.846814365007829, 1e-9);
    EXPECT_NEAR(r->p_value, 0.0099612602468992, 1e-9);
}

TEST(DiffWelch, ConstantRunsAndTooFewRuns) {
    EXPECT_EQ(welch_t_test(summarize({5, 5, 5}), summarize({5, 5})).value().p_value, 1.0);
    EXPECT_EQ(welch_t_test(summarize({5, 5, 5}), summarize({6, 6})).value().p_value, 0.0);
    EXPECT_FALSE(welch_t_test(summarize({5}), summarize({5, 6})));
}

// ---- comparing two files ------------------------------------------------------------

StatResultFile file(const std::string &events, int runs = 3, const std::string &backend = "perf_event") {
    return parse_stat_result(stat_json(events, runs, backend), backend + ".json");
}

std::string compare_error(const StatResultFile &a, const StatResultFile &b, const DiffGate &g = {}) {
    try {
        compare_stat_results(a, b, g);
    } catch (const DiffInputError &e) {
        return e.what();
    }
    return "";
}

TEST(DiffCompare, IdenticalRunsPassTheGate) {
    DiffGate g;
    g.all_pct = 0;
    StatResultFile a = file(counted("instructions", "1000, 1001, 999"));
    DiffReport r = compare_stat_results(a, a, g);
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].verdict, ChangeVerdict::no_change);
    EXPECT_FALSE(r.failed);
}

TEST(DiffCompare, SignificantGrowthPastTheLimitFails) {
    StatResultFile a = file(counted("instructions", "1000, 1001, 999"));
    StatResultFile b = file(counted("instructions", "1100, 1101, 1099"));
    DiffGate g;
    g.all_pct = 5;
    DiffReport r = compare_stat_results(a, b, g);
    EXPECT_EQ(r.events[0].verdict, ChangeVerdict::increase);
    EXPECT_NEAR(*r.events[0].change_pct, 10.0, 1e-9);
    EXPECT_TRUE(r.failed);
    g.all_pct = 20;  // grew, but less than the limit
    EXPECT_FALSE(compare_stat_results(a, b, g).failed);
    g.event_pct["instructions"] = 1;  // the per-event limit wins
    EXPECT_TRUE(compare_stat_results(a, b, g).failed);
    EXPECT_FALSE(compare_stat_results(b, a, g).failed);  // a decrease never fails
    EXPECT_EQ(compare_stat_results(b, a, g).events[0].verdict, ChangeVerdict::decrease);
}

TEST(DiffCompare, NoisyGrowthIsNotSignificant) {
    StatResultFile a = file(counted("task-clock", "100, 300, 200"));
    StatResultFile b = file(counted("task-clock", "150, 350, 160"));
    DiffGate g;
    g.all_pct = 1;
    DiffReport r = compare_stat_results(a, b, g);
    EXPECT_EQ(r.events[0].verdict, ChangeVerdict::no_change);
    EXPECT_FALSE(r.failed);
}

TEST(DiffCompare, GrowthFromZeroHasNoPercentButFails) {
    DiffGate g;
    g.all_pct = 50;
    DiffReport r = compare_stat_results(file(counted("major-faults", "0, 0, 0")),
                                        file(counted("major-faults", "2, 2, 2")), g);
    EXPECT_FALSE(r.events[0].change_pct);
    EXPECT_TRUE(r.failed);
}

TEST(DiffCompare, RefusesResultsThatDoNotMatch) {
    StatResultFile a = file(counted("instructions", "1, 2, 3"));
    EXPECT_NE(compare_error(a, file(counted("instructions", "1, 2, 3"), 3, "kperf")).find("backend"),
              std::string::npos);
    EXPECT_NE(compare_error(a, file(counted("cycles", "1, 2, 3"))).find("is \"instructions\""),
              std::string::npos);
    EXPECT_NE(compare_error(a, file(counted("instructions", "1, 2, 3") + "," + kUnsupported)).find("1 events"),
              std::string::npos);
    StatResultFile unsupported = file(R"({"name": "instructions", "status": "not_supported", "unit": ""})");
    EXPECT_NE(compare_error(a, unsupported).find("counted in"), std::string::npos);
    DiffGate g;
    g.event_pct["instrctions"] = 1;
    EXPECT_NE(compare_error(a, a, g).find("names \"instrctions\""), std::string::npos);
    DiffGate all;
    all.all_pct = 1;
    StatResultFile one = file(counted("instructions", "1"), 1);
    EXPECT_NE(compare_error(one, one, all).find("at least 2 runs"), std::string::npos);
    EXPECT_EQ(compare_error(one, one), "");  // without a gate: shown as untested
    EXPECT_EQ(compare_stat_results(one, one, {}).events[0].verdict, ChangeVerdict::untested);
}

}  // namespace
