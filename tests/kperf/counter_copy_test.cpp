// The kperf read's copy (src/backends/kperf/counter_copy.hpp): both the portable routines
// and the AVX2 ones, for every event count, against values computed here, so each path
// is proven correct on its own, whichever one this machine's handles use.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "backends/kperf/counter_copy.hpp"
#include "kpc/errors.h"

namespace {

using kpc::kperf::avx2_copy_available;
using kpc::kperf::CopyBlock;
using kpc::kperf::CopyFn;
using kpc::kperf::select_copy;

constexpr size_t kMax = KP_KPC_MAX_COUNTERS;
constexpr uint64_t kGuard = 0x5a5a5a5a5a5a5a5aull;

// Runs `copy` on `block` for `n` events into a buffer with guard words on both sides,
// checks the guards, and returns the n values.
std::vector<uint64_t> run(CopyFn copy, CopyBlock &block, size_t n) {
    std::vector<uint64_t> mem(n + 8, kGuard);
    block.out = mem.data() + 4;
    EXPECT_EQ(copy(&block), KP_OK);
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(mem[i], kGuard) << "wrote before values[0], n=" << n;
        EXPECT_EQ(mem[n + 4 + i], kGuard) << "wrote past values[n-1], n=" << n;
    }
    return std::vector<uint64_t>(mem.begin() + 4, mem.begin() + 4 + n);
}

// A block for n events at distinct random slots, with counts and offsets that wrap.
CopyBlock random_block(size_t n, std::mt19937_64 &rng, std::vector<uint64_t> &expected) {
    CopyBlock b;
    std::vector<uint32_t> slots(kMax);
    std::iota(slots.begin(), slots.end(), 0u);
    std::shuffle(slots.begin(), slots.end(), rng);
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

TEST(CounterCopy, OnlyOneToThirtyTwoEventsHaveACopy) {
    EXPECT_EQ(select_copy(0, false), nullptr);
    EXPECT_EQ(select_copy(0, true), nullptr);
    EXPECT_EQ(select_copy(kMax + 1, false), nullptr);
    EXPECT_EQ(select_copy(kMax + 1, true), nullptr);
    for (size_t n = 1; n <= kMax; ++n) {
        EXPECT_NE(select_copy(n, false), nullptr) << n;
        EXPECT_NE(select_copy(n, true), nullptr) << n;
    }
}

TEST(CounterCopy, PortableCopyMatchesExpectedForEveryCount) {
    std::mt19937_64 rng(12345);
    for (size_t n = 1; n <= kMax; ++n) {
        for (int round = 0; round < 20; ++round) {
            std::vector<uint64_t> expected;
            CopyBlock b = random_block(n, rng, expected);
            EXPECT_EQ(run(select_copy(n, false), b, n), expected) << "n=" << n;
        }
    }
}

TEST(CounterCopy, Avx2CopyMatchesPortableAndExpectedForEveryCount) {
    if (!avx2_copy_available())
        GTEST_SKIP() << "this CPU (or build) has no AVX2, so the AVX2 copy cannot run here";
    std::mt19937_64 rng(67890);
    for (size_t n = 1; n <= kMax; ++n) {
        // From 4 events on the AVX2 routine is a different function (fewer use the
        // portable one): this test must not pass by running the portable copy twice.
        if (n >= 4) EXPECT_NE(select_copy(n, true), select_copy(n, false)) << "n=" << n;
        for (int round = 0; round < 20; ++round) {
            std::vector<uint64_t> expected;
            CopyBlock b = random_block(n, rng, expected);
            std::vector<uint64_t> portable = run(select_copy(n, false), b, n);
            std::vector<uint64_t> avx2 = run(select_copy(n, true), b, n);
            EXPECT_EQ(avx2, expected) << "n=" << n;
            EXPECT_EQ(avx2, portable) << "n=" << n;
        }
    }
}

// The benchmark's 8-event set on the A14: slots 0, 1, 7, 6, 5, 4, 3, 2.
TEST(CounterCopy, PermutedEightEventsGiveTheSameTotalsOnBothPaths) {
    CopyBlock b;
    const uint32_t slots[8] = {0, 1, 7, 6, 5, 4, 3, 2};
    for (uint32_t s = 0; s < kMax; ++s) b.buf[s] = 1000 * (s + 1);
    std::vector<uint64_t> expected(8);
    for (size_t i = 0; i < 8; ++i) {
        b.index[i] = slots[i];
        b.offset[i] = i == 3 ? ~uint64_t{0} : 7 * i;  // event 3: its total is one below
        expected[i] = 1000 * (slots[i] + 1) + (i == 3 ? -1 : 7 * static_cast<int64_t>(i));
    }
    EXPECT_EQ(run(select_copy(8, false), b, 8), expected);
    if (!avx2_copy_available())
        GTEST_SKIP() << "this CPU (or build) has no AVX2; checked the portable copy only";
    EXPECT_EQ(run(select_copy(8, true), b, 8), expected);
}

}  // namespace
