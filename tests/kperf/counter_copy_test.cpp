// The kperf read's copy (src/backends/kperf/counter_copy.hpp), for every event count,
// against values computed here, with sums that wrap and guard words around the output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "backends/kperf/counter_copy.hpp"

namespace {

using kpc::kperf::copy_counters;
using kpc::kperf::CopyBlock;

constexpr size_t kMax = KP_KPC_MAX_COUNTERS;
constexpr uint64_t kGuard = 0x5a5a5a5a5a5a5a5aull;

// Copies n events into a buffer with guard words on both sides, checks the guards, and
// returns the n values.
std::vector<uint64_t> run(const CopyBlock &block, size_t n) {
    std::vector<uint64_t> mem(n + 8, kGuard);
    copy_counters(block, n, mem.data() + 4);
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(mem[i], kGuard) << "wrote before values[0], n=" << n;
        EXPECT_EQ(mem[n + 4 + i], kGuard) << "wrote past values[n-1], n=" << n;
    }
    return std::vector<uint64_t>(mem.begin() + 4, mem.begin() + 4 + n);
}

// A block for n events at random slots (distinct when `below` is kMax, else below `below`
// with repeats), with counts and offsets drawn from all 64 bits so that sums wrap.
CopyBlock random_block(size_t n, std::mt19937_64 &rng, std::vector<uint64_t> &expected,
                       size_t below) {
    CopyBlock b;
    std::vector<uint32_t> slots(kMax);
    std::iota(slots.begin(), slots.end(), 0u);
    std::shuffle(slots.begin(), slots.end(), rng);
    if (below < kMax)
        for (auto &s : slots) s = static_cast<uint32_t>(rng() % below);
    for (size_t s = 0; s < kMax; ++s) b.buf[s] = rng();
    expected.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        b.index[i] = slots[i];
        b.offset[i] = rng();
        expected[i] = b.buf[slots[i]] + b.offset[i];  // mod 2^64, as the read does
    }
    // Entries past n hold garbage a correct copy never lets through.
    for (size_t i = n; i < kMax; ++i) {
        b.index[i] = static_cast<uint32_t>(rng() % kMax);
        b.offset[i] = rng();
    }
    return b;
}

TEST(CounterCopy, MatchesExpectedForEveryCount) {
    std::mt19937_64 rng(12345);
    size_t wrapped = 0;
    for (size_t below : {kMax, size_t{10}}) {  // any slot; the A14/M1's 10 counters
        for (size_t n = 1; n <= kMax; ++n) {
            for (int round = 0; round < 20; ++round) {
                std::vector<uint64_t> expected;
                CopyBlock b = random_block(n, rng, expected, below);
                for (size_t i = 0; i < n; ++i) wrapped += expected[i] < b.offset[i];
                EXPECT_EQ(run(b, n), expected) << "n=" << n << " slots below " << below;
            }
        }
    }
    EXPECT_GT(wrapped, 0u) << "no sum wrapped, so wrap-around went untested";
}

// The benchmark's 8-event set on the A14: slots 0, 1, 7, 6, 5, 4, 3, 2; event 3's offset
// is -1 mod 2^64 (its total is one below its slot's count).
TEST(CounterCopy, PermutedEightEventsWithAWrappingOffset) {
    CopyBlock b;
    const uint32_t slots[8] = {0, 1, 7, 6, 5, 4, 3, 2};
    for (uint32_t s = 0; s < kMax; ++s) b.buf[s] = 1000 * (s + 1);
    std::vector<uint64_t> expected(8);
    for (size_t i = 0; i < 8; ++i) {
        b.index[i] = slots[i];
        b.offset[i] = i == 3 ? ~uint64_t{0} : 7 * i;
        expected[i] = 1000 * (slots[i] + 1) + (i == 3 ? -1 : 7 * static_cast<int64_t>(i));
    }
    EXPECT_EQ(run(b, 8), expected);
}

}  // namespace
