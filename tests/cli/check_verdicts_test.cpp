// The judging rules of kpc check (src/cli/check_verdicts.cpp) on numbers chosen to sit on
// each side of every threshold: the CLI tests only see the numbers a machine produces.
#include <gtest/gtest.h>

#include <vector>

#include "cli/check_verdicts.hpp"

using namespace kpc_cli;

namespace {

CheckResult fresh() {
    CheckResult r;
    r.event = "e";
    r.check = "c";
    return r;
}

}  // namespace

TEST(CheckVerdicts, FitLineRecoversSlopeAndIntercept) {
    LineFit f = fit_line({1, 2, 3, 4}, {110, 210, 310, 410});
    EXPECT_DOUBLE_EQ(f.slope, 100);
    EXPECT_NEAR(f.intercept, 10, 1e-9);
    EXPECT_NEAR(f.max_relative_deviation, 0, 1e-12);
}

TEST(CheckVerdicts, ExactWithinOnePercent) {
    CheckResult r = fresh();
    judge_exact(r, 6.05, 6, "instructions");
    EXPECT_EQ(r.verdict, Verdict::pass) << r.message;
    judge_exact(r, 6.1, 6, "instructions");
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
    judge_exact(r, 5.9, 6, "instructions");
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
}

TEST(CheckVerdicts, LinearityRejectsCurvesAndFlatCounts) {
    CheckResult r = fresh();
    judge_linearity(r, {1, 2, 3, 4}, {100, 200, 300, 400});
    EXPECT_EQ(r.verdict, Verdict::pass) << r.message;
    judge_linearity(r, {1, 2, 3, 4}, {100, 400, 900, 1600});  // quadratic
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
    judge_linearity(r, {1, 2, 3, 4}, {1000, 1001, 1002, 1003});  // a line, but not the work
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
    judge_linearity(r, {1, 2, 3, 4}, {0, 0, 0, 0});
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
}

TEST(CheckVerdicts, RandomBranchesMustMispredict) {
    CheckResult r = fresh();
    judge_random_branches(r, 0.45, 0.001);
    EXPECT_EQ(r.verdict, Verdict::pass) << r.message;
    judge_random_branches(r, 0.10, 0.001);
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
}

TEST(CheckVerdicts, MissesMustGrowWithTheWorkingSet) {
    CheckResult r = fresh();
    judge_working_set(r, 0.01, 0.9);
    EXPECT_EQ(r.verdict, Verdict::pass) << r.message;
    judge_working_set(r, 0.5, 0.9);  // high, but no growth
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
    judge_working_set(r, 0.0, 0.1);  // grows, but too few misses for DRAM
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
}

TEST(CheckVerdicts, GhzInPlausibleRange) {
    CheckResult r = fresh();
    judge_ghz(r, 3e9, 1e9);
    EXPECT_EQ(r.verdict, Verdict::pass) << r.message;
    judge_ghz(r, 7e9, 1e9);
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
    judge_ghz(r, 0.2e9, 1e9);
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
    judge_ghz(r, 1e9, 0);
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
}

TEST(CheckVerdicts, PageFaultsAndCpuTime) {
    CheckResult r = fresh();
    judge_page_faults(r, 1030, 1024);
    EXPECT_EQ(r.verdict, Verdict::pass) << r.message;
    judge_page_faults(r, 2, 1024);  // huge pages, or a wrong event
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
    judge_cpu_time(r, 50.5e6, 50e6);
    EXPECT_EQ(r.verdict, Verdict::pass) << r.message;
    judge_cpu_time(r, 54e6, 50e6);  // 5% + 0.5 ms allows 3 ms
    EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
}

TEST(CheckVerdicts, SuspectZero) {
    CheckResult r = fresh();
    judge_nonzero(r, 0, "the loop");
    EXPECT_EQ(r.verdict, Verdict::fail);
    EXPECT_EQ(r.message.rfind("suspect zero", 0), 0u) << r.message;
    judge_nonzero(r, 1, "the loop");
    EXPECT_EQ(r.verdict, Verdict::pass);
}

TEST(CheckVerdicts, ExitStatus) {
    auto with = [](std::vector<Verdict> vs) {
        std::vector<CheckResult> rs;
        for (Verdict v : vs) {
            CheckResult r = fresh();
            r.verdict = v;
            rs.push_back(r);
        }
        return check_exit_status(rs);
    };
    EXPECT_EQ(with({Verdict::pass, Verdict::cannot_count}), 0);
    EXPECT_EQ(with({Verdict::pass, Verdict::fail, Verdict::cannot_count}), kExitCheckFailed);
    EXPECT_EQ(with({Verdict::cannot_count, Verdict::cannot_count}), kExitCannotCount);
    EXPECT_EQ(with({}), kExitCannotCount);
    EXPECT_NE(kExitCheckFailed, kExitCannotCount);
}
