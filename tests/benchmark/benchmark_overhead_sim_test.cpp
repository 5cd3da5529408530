// kpc::subtract_overhead on counts known exactly (issue 20 item 3): the kperf simulator with
// CPU-time accrual off (KPSIM_CPU_TIME_COUNTS=0), where a thread's FIXED_INSTRUCTIONS move
// only by each counter read's kernel cost, a constant kCost (KPSIM_READ_KERNEL_INSTRUCTIONS).
// Each iteration makes one raw read, so the truth is exactly kCost instructions per
// iteration. The measured region also holds the cost of the read that opens it (kCost,
// once): without the subtraction the result is kCost + kCost / N, subtracted twice
// kCost - kCost / N. The page-faults tests cannot tell, their offset is 0.
#include <benchmark/benchmark.h>
#include <kpc/benchmark.hpp>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kpsim.h"

extern "C" int kpc_get_thread_counters(uint32_t tid, uint32_t buf_count, uint64_t *buf);

namespace {

constexpr uint64_t kCost = 1000;
constexpr int kIterations = 50;
int raw_read_failures = 0;

void BM_OneReadPerIteration(benchmark::State &state) {
    kpc::BenchmarkCounters counters(state, {"instructions"}, kpc::subtract_overhead);
    uint64_t buf[32];
    for (auto _ : state)
        if (kpc_get_thread_counters(0, 32, buf) != 0) ++raw_read_failures;
}
BENCHMARK(BM_OneReadPerIteration)->Iterations(kIterations);

class Capture : public benchmark::ConsoleReporter {
public:
    bool error = false;
    std::string message;
    double instructions = -1;
    void ReportRuns(const std::vector<benchmark::BenchmarkReporter::Run> &reports) override {
        for (const auto &r : reports) {
            error = r.error_occurred;
            message = r.error_message;
            auto c = r.counters.find("instructions");
            if (c != r.counters.end()) instructions = c->second.value;  // per iteration
        }
        ConsoleReporter::ReportRuns(reports);
    }
};

}  // namespace

int main(int argc, char **argv) {
    // Before the first kp_sampler_new: the simulator reads its knobs at kpsim_reset.
    setenv("KPC_BACKEND", "kperf", 1);
    setenv("KPC_KPERF_PATH", KPSIM_TEST_KPERF, 1);
    setenv("KPC_KPERFDATA_PATH", KPSIM_TEST_KPERFDATA, 1);
    setenv("KPSIM_READ_KERNEL_INSTRUCTIONS", std::to_string(kCost).c_str(), 1);
    setenv("KPSIM_CPU_TIME_COUNTS", "0", 1);
    kpsim_reset();
    benchmark::Initialize(&argc, argv);
    Capture capture;
    benchmark::RunSpecifiedBenchmarks(&capture);
    int failures = 0;
    if (capture.error) {
        std::fprintf(stderr, "FAIL: the benchmark failed: %s\n", capture.message.c_str());
        ++failures;
    }
    if (raw_read_failures) {
        std::fprintf(stderr, "FAIL: %d raw simulator reads failed\n", raw_read_failures);
        ++failures;
    }
    if (capture.instructions != double(kCost)) {
        std::fprintf(stderr,
                     "FAIL: instructions per iteration %.3f, the truth is %llu (%.3f: no overhead "
                     "subtracted; %.3f: subtracted twice)\n",
                     capture.instructions, (unsigned long long)kCost,
                     kCost + double(kCost) / kIterations, kCost - double(kCost) / kIterations);
        ++failures;
    }
    if (failures) return 1;
    std::printf("overhead subtracted exactly: %llu instructions per iteration\n", (unsigned long long)kCost);
    return 0;
}
