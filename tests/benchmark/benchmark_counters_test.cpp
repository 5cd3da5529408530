// kpc::BenchmarkCounters (include/kpc/benchmark.hpp) inside Google Benchmark, on the real
// perf_event software events: page faults of touching N fresh pages per iteration come out
// as about N per iteration; an event this machine cannot count is a reported error, never 0.
#include <benchmark/benchmark.h>
#include <kpc/benchmark.hpp>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/workload.hpp"

namespace {

constexpr int kPages = 64;

void BM_TouchPages(benchmark::State &state) {
    kpc::BenchmarkCounters counters(state, {"page-faults", "task-clock"});
    for (auto _ : state) {
        if (!kpc_test::touch_fresh_pages(kPages)) state.SkipWithError("mmap failed");
    }
}
BENCHMARK(BM_TouchPages)->Iterations(50);

void BM_TouchPagesLessOverhead(benchmark::State &state) {
    kpc::BenchmarkCounters counters(state, {"page-faults"}, kpc::subtract_overhead);
    for (auto _ : state) kpc_test::touch_fresh_pages(kPages);
}
BENCHMARK(BM_TouchPagesLessOverhead)->Iterations(50);

void BM_UnknownEvent(benchmark::State &state) {
    kpc::BenchmarkCounters counters(state, {"no-such-event"});
    for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
}
BENCHMARK(BM_UnknownEvent)->Iterations(10);

struct Outcome {
    bool error = false;
    std::string message;
    std::map<std::string, double> counters;
};

// Keeps every run's counters and error.
class Capture : public benchmark::ConsoleReporter {
public:
    std::map<std::string, Outcome> runs;
    void ReportRuns(const std::vector<benchmark::BenchmarkReporter::Run> &reports) override {
        for (const auto &r : reports) {
            Outcome &out = runs[r.benchmark_name()];
            out.error = r.error_occurred;
            out.message = r.error_message;
            // Reporters receive counters already finished: kAvgIterations divided.
            for (const auto &c : r.counters) out.counters[c.first] = c.second.value;
        }
        ConsoleReporter::ReportRuns(reports);
    }
};

int failures = 0;
void expect(bool ok, const std::string &what) {
    if (!ok) {
        std::fprintf(stderr, "FAIL: %s\n", what.c_str());
        ++failures;
    }
}

}  // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    Capture capture;
    benchmark::RunSpecifiedBenchmarks(&capture);

    const Outcome &touch = capture.runs["BM_TouchPages/iterations:50"];
    expect(!touch.error, "BM_TouchPages ran: " + touch.message);
    double faults = touch.counters.count("page-faults") ? touch.counters.at("page-faults") : 0;
    expect(faults >= kPages && faults < kPages * 1.5,
           "page-faults per iteration is about " + std::to_string(kPages) + ": " +
               std::to_string(faults));
    expect(touch.counters.count("task-clock") && touch.counters.at("task-clock") > 0, "task-clock per iteration is counted");

    const Outcome &less = capture.runs["BM_TouchPagesLessOverhead/iterations:50"];
    expect(!less.error, "BM_TouchPagesLessOverhead ran: " + less.message);
    expect(less.counters.count("page-faults") && less.counters.at("page-faults") >= kPages && less.counters.at("page-faults") < kPages * 1.5,
           "with the overhead subtracted, still about N faults per iteration");

    const Outcome &unknown = capture.runs["BM_UnknownEvent/iterations:10"];
    expect(unknown.error, "an unknown event is reported as an error, not as 0");
    expect(unknown.message.find("no-such-event") != std::string::npos,
           "the error carries libkpc's message: " + unknown.message);
    expect(unknown.counters.count("no-such-event") == 0, "no counter is reported for it");

    std::printf("%s\n", failures ? "benchmark counters: FAILED" : "benchmark counters: ok");
    return failures ? 1 : 0;
}
