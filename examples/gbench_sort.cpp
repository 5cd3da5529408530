// Instructions and branch misses per iteration of a sort, in Google Benchmark (the README's
// "In a benchmark harness" example). Build: c++ -std=c++17 gbench_sort.cpp
//   $(pkg-config --cflags --libs kpc) -lbenchmark -lpthread
#include <benchmark/benchmark.h>
#include <kpc/benchmark.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

static void BM_sort(benchmark::State &state) {
    std::vector<int> v(100000);
    std::iota(v.rbegin(), v.rend(), 0);                // setup: not counted
    kpc::BenchmarkCounters counters(state, {"instructions", "branch-misses"});
    for (auto _ : state) {
        std::vector<int> w = v;
        std::sort(w.begin(), w.end());
        benchmark::DoNotOptimize(w.data());
    }
}
BENCHMARK(BM_sort);
BENCHMARK_MAIN();
