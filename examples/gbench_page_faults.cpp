// Page faults per iteration in Google Benchmark: each iteration writes one byte to each of
// N fresh pages, so kpc::BenchmarkCounters reports page-faults ≈ N. page-faults is a
// software event of Linux's perf_event backend, so this runs on any Linux machine, PMU or
// not; on a Mac (kperf counts only the PMU) it reports libkpc's error instead. Build:
//   c++ -std=c++17 gbench_page_faults.cpp $(pkg-config --cflags --libs kpc) -lbenchmark -lpthread
#include <benchmark/benchmark.h>
#include <kpc/benchmark.hpp>

#include <sys/mman.h>
#include <unistd.h>

static void touch_fresh_pages(size_t pages) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void *p = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    for (size_t i = 0; i < pages; ++i) static_cast<volatile char *>(p)[i * page] = 1;
    munmap(p, pages * page);
}

static void BM_touch_pages(benchmark::State &state) {
    const size_t pages = static_cast<size_t>(state.range(0));
    kpc::BenchmarkCounters counters(state, {"page-faults"});
    for (auto _ : state) touch_fresh_pages(pages);
}
BENCHMARK(BM_touch_pages)->Arg(16)->Arg(256);
BENCHMARK_MAIN();
