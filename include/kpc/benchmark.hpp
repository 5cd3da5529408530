// SPDX-License-Identifier: MIT OR Apache-2.0
/**
 * @file kpc/benchmark.hpp
 * @brief libkpc counters in Google Benchmark: per-iteration event counts in state.counters.
 *
 * Header-only, over the public C API; include it after <benchmark/benchmark.h>:
 *
 * @code
 * #include <benchmark/benchmark.h>
 * #include <kpc/benchmark.hpp>
 *
 * static void BM_parse(benchmark::State &state) {
 *     Input in = make_input();                               // setup: not counted
 *     kpc::BenchmarkCounters counters(state, {"instructions", "branch-misses"});
 *     for (auto _ : state) benchmark::DoNotOptimize(parse(in));
 * }                                                          // reports instructions/iter
 * BENCHMARK(BM_parse);
 * @endcode
 *
 * Counting starts when the object is built and stops when it is destroyed; each event is
 * reported in state.counters under its name, divided by the iterations (Google Benchmark's
 * kAvgIterations). With kpc::subtract_overhead, the cost of an empty measured region
 * (kp_thread_calibrate) is subtracted once, since the whole loop is one region.
 *
 * An event this machine cannot count, or any other libkpc failure, makes the benchmark
 * report an error through state.SkipWithError with libkpc's message: never a silent 0.
 *
 * Threads: counts are per thread (the C API's rule). With ->Threads(n), each thread builds
 * its own object and Google Benchmark adds the threads' counters together.
 * Apple: counting needs root, and all benchmarks must count the same event set while one
 * counts (the configuration is system-wide; see docs/apple.md).
 */
#ifndef KPC_BENCHMARK_HPP
#define KPC_BENCHMARK_HPP

#include <benchmark/benchmark.h>
#include <kpc/kpc.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace kpc {

/** Subtract the cost of an empty measured region from each event's count. */
struct SubtractOverhead {};
inline constexpr SubtractOverhead subtract_overhead{};

namespace detail {

// One sampler for the process, made on first use and freed at exit: samplers are costly to
// open (the event database), and on Apple only one may hold the counters.
class ProcessSampler {
public:
    static ProcessSampler &get() {
        static ProcessSampler instance;
        return instance;
    }
    kp_sampler_t *sampler() const { return s_; }
    const std::string &error() const { return error_; }
    ~ProcessSampler() { kp_sampler_free(s_); }
    ProcessSampler(const ProcessSampler &) = delete;
    ProcessSampler &operator=(const ProcessSampler &) = delete;

private:
    ProcessSampler() {
        if (kp_sampler_new(&s_, nullptr) != KP_OK)
            error_ = std::string("libkpc: ") + kp_error_last_message();
    }
    kp_sampler_t *s_ = nullptr;
    std::string error_;
};

}  // namespace detail

/** Counts events around a Google Benchmark loop; see the file comment. Not copyable. */
class BenchmarkCounters {
public:
    BenchmarkCounters(benchmark::State &state, std::initializer_list<const char *> events)
        : BenchmarkCounters(state, std::vector<const char *>(events), false) {}
    BenchmarkCounters(benchmark::State &state, std::initializer_list<const char *> events,
                      SubtractOverhead)
        : BenchmarkCounters(state, std::vector<const char *>(events), true) {}
    BenchmarkCounters(benchmark::State &state, std::vector<const char *> events,
                      bool subtract = false)
        : state_(state), names_(events.begin(), events.end()), subtract_(subtract) {
        for (const std::string &n : names_) c_names_.push_back(n.c_str());
        start();
    }

    BenchmarkCounters(const BenchmarkCounters &) = delete;
    BenchmarkCounters &operator=(const BenchmarkCounters &) = delete;

    ~BenchmarkCounters() {
        if (t_ && !state_.error_occurred()) report();
        kp_thread_free(t_);
    }

private:
    void fail(const std::string &what) {
        state_.SkipWithError(what.c_str());
        kp_thread_free(t_);
        t_ = nullptr;
    }

    void start() {
        const detail::ProcessSampler &p = detail::ProcessSampler::get();
        if (!p.sampler()) return fail(p.error());
        if (kp_thread_new(&t_, p.sampler(), c_names_.data(), c_names_.size()) != KP_OK)
            return fail(std::string("libkpc: ") + kp_error_last_message());
        before_.resize(names_.size());
        offsets_.assign(names_.size(), 0);
        if (kp_thread_start(t_) != KP_OK)
            return fail(std::string("libkpc: ") + kp_error_last_message());
        if (subtract_ && kp_thread_calibrate(t_, offsets_.data(), offsets_.size(), 0) != KP_OK)
            return fail(std::string("libkpc: ") + kp_error_last_message());
        if (kp_thread_sample(t_, before_.data(), before_.size()) != KP_OK)
            return fail(std::string("libkpc: ") + kp_error_last_message());
    }

    void report() {
        std::vector<uint64_t> after(names_.size());
        if (kp_thread_sample(t_, after.data(), after.size()) != KP_OK)
            return fail(std::string("libkpc: ") + kp_error_last_message());
        for (size_t i = 0; i < names_.size(); ++i) {
            uint64_t delta = after[i] - before_[i];
            delta = delta > offsets_[i] ? delta - offsets_[i] : 0;
            state_.counters[names_[i]] =
                benchmark::Counter(static_cast<double>(delta), benchmark::Counter::kAvgIterations);
        }
    }

    benchmark::State &state_;
    std::vector<std::string> names_;    // copies: the caller's strings may not outlive us
    std::vector<const char *> c_names_;
    bool subtract_;
    kp_thread_t *t_ = nullptr;
    std::vector<uint64_t> before_, offsets_;
};

}  // namespace kpc

#endif  // KPC_BENCHMARK_HPP
