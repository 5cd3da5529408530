// The AArch64 NEON copy of the kperf read (src/backends/kperf/counter_copy.hpp), checked
// against the portable copy and against values computed here. Standalone (no GoogleTest,
// which is not installed for arm64): counter_copy_aarch64.cmake cross-compiles it with
// counter_copy.cpp and runs it under qemu-aarch64 (CTest: kperf.counter_copy_aarch64).
//
//   counter_copy_aarch64_check               run the checks; exit 0, or 1 naming failures
//   counter_copy_aarch64_check --selection   print the routine select_copy picks (its
//                                            address) for every event count and every set
//                                            of rows of slots 0..9 the events use, and
//                                            with slot 31 (for aarch64_copy_count.py)
//
// Every count from 1 to 32 is run on random slots: below 8; below 10 leaving one row of
// two slots (0-1, 2-3, 4-5, 6-7) unused while 8 or 9 is used; all five rows of slots 0..9
// used; slots assigned from the top down (0, 1, 9, 8, ...); repeated; any of 0..31,
// including 31. Buffer counts and offsets are often near 2^64, so that sums wrap, and the
// output has guard words on both sides.
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "backends/kperf/counter_copy.hpp"
#include "kpc/errors.h"

#if !defined(__aarch64__) || !KPC_HAVE_NEON_COPY
#error "counter_copy_aarch64_check is built for AArch64, where counter_copy.cpp has NEON copies"
#endif

namespace {

using kpc::kperf::CopyBlock;
using kpc::kperf::CopyFn;
using kpc::kperf::select_copy;
using kpc::kperf::simd_copy_available;

constexpr size_t kMax = KP_KPC_MAX_COUNTERS;
constexpr uint64_t kGuard = 0x5a5a5a5a5a5a5a5aull;
constexpr int kMaxReports = 12;

int failures = 0;

void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *fmt, ...) {
    if (++failures <= kMaxReports) {
        std::printf("FAIL: ");
        va_list ap;
        va_start(ap, fmt);
        std::vprintf(fmt, ap);
        va_end(ap);
        std::printf("\n");
    }
}

void describe(const CopyBlock &b, size_t n) {
    if (failures > kMaxReports) return;
    std::printf("  slots:");
    for (size_t i = 0; i < n; ++i) std::printf(" %" PRIu32, b.index[i]);
    std::printf("\n");
}

// A count or offset: anything, or near 2^64 (so that buf + offset wraps), or small.
uint64_t random_value(std::mt19937_64 &rng) {
    switch (rng() % 4) {
    case 0: return ~uint64_t{0} - rng() % 1000;  // 2^64 - 1 - k
    case 1: return rng() % 1000;
    default: return rng();
    }
}

// Runs `copy` for n events into guarded memory; false (after reporting) on a guard hit.
bool run(CopyFn copy, CopyBlock &b, size_t n, std::vector<uint64_t> &values, const char *which) {
    std::vector<uint64_t> mem(n + 8, kGuard);
    b.out = mem.data() + 4;
    const int rc = copy(&b);
    bool ok = true;
    if (rc != KP_OK) {
        fail("%s copy, %zu events: returned %d, not KP_OK", which, n, rc);
        ok = false;
    }
    for (size_t i = 0; i < 4; ++i) {
        if (mem[i] != kGuard || mem[n + 4 + i] != kGuard) {
            fail("%s copy, %zu events: wrote outside values[0..%zu)", which, n, n);
            ok = false;
            break;
        }
    }
    values.assign(mem.begin() + 4, mem.begin() + 4 + static_cast<std::ptrdiff_t>(n));
    return ok;
}

// How the slots of one case are drawn.
enum class Slots {
    Below8,       // rows 0..3: the usual case on the A14/M1
    FreeRow0,     // slots 0..9 but row r (slots 2r, 2r+1) unused, 8 or 9 used
    FreeRow1,
    FreeRow2,
    FreeRow3,
    AllRows,      // every row of slots 0..9 used (from 5 events)
    TopDown,      // 0, 1, then 9, 8, 7, ... (an allocator filling from the top)
    Below10,
    Any,
    AnyWith31,
    AllSame,
    Bench,        // the benchmark's 0, 1, 7, 6, 5, 4, 3, 2
};
const Slots kKinds[] = {Slots::Below8,  Slots::FreeRow0, Slots::FreeRow1,  Slots::FreeRow2,
                        Slots::FreeRow3, Slots::AllRows,  Slots::TopDown,   Slots::Below10,
                        Slots::Any,      Slots::AnyWith31, Slots::AllSame,  Slots::Bench};

const char *name(Slots s) {
    switch (s) {
    case Slots::Below8: return "slots 0..7";
    case Slots::FreeRow0: return "slots 2..9, 8 or 9 used";
    case Slots::FreeRow1: return "slots 0..9 but 2, 3; 8 or 9 used";
    case Slots::FreeRow2: return "slots 0..9 but 4, 5; 8 or 9 used";
    case Slots::FreeRow3: return "slots 0..9 but 6, 7; 8 or 9 used";
    case Slots::AllRows: return "all five rows of slots 0..9";
    case Slots::TopDown: return "slots 0, 1, 9, 8, ...";
    case Slots::Below10: return "slots 0..9";
    case Slots::Any: return "slots 0..31";
    case Slots::AnyWith31: return "slots 0..31 with 31";
    case Slots::AllSame: return "one slot repeated";
    case Slots::Bench: return "the benchmark's 0,1,7,6,5,4,3,2";
    }
    return "?";
}

void draw_slots(CopyBlock &b, size_t n, Slots kind, std::mt19937_64 &rng) {
    const uint32_t same = static_cast<uint32_t>(rng() % 10);
    static const uint32_t bench[8] = {0, 1, 7, 6, 5, 4, 3, 2};
    auto below10_but_row = [&](uint32_t row) {
        uint32_t s;
        do s = static_cast<uint32_t>(rng() % 10);
        while (s / 2 == row);
        return s;
    };
    for (size_t i = 0; i < n; ++i) {
        uint32_t &slot = b.index[i];
        switch (kind) {
        case Slots::Below8: slot = static_cast<uint32_t>(rng() % 8); break;
        case Slots::FreeRow0: slot = below10_but_row(0); break;
        case Slots::FreeRow1: slot = below10_but_row(1); break;
        case Slots::FreeRow2: slot = below10_but_row(2); break;
        case Slots::FreeRow3: slot = below10_but_row(3); break;
        case Slots::AllRows:
        case Slots::Below10: slot = static_cast<uint32_t>(rng() % 10); break;
        case Slots::TopDown: slot = i < 2 ? static_cast<uint32_t>(i) : 9 - (i - 2) % 8; break;
        case Slots::Any:
        case Slots::AnyWith31: slot = static_cast<uint32_t>(rng() % kMax); break;
        case Slots::AllSame: slot = same; break;
        case Slots::Bench: slot = i < 8 ? bench[i] : static_cast<uint32_t>(i % 10); break;
        }
    }
    switch (kind) {
    case Slots::FreeRow0:
    case Slots::FreeRow1:
    case Slots::FreeRow2:
    case Slots::FreeRow3: b.index[rng() % n] = 8 + static_cast<uint32_t>(rng() % 2); break;
    case Slots::AllRows:
        if (n >= 5) {  // rows 0..4 at 5 distinct random events
            std::vector<size_t> at(n);
            for (size_t i = 0; i < n; ++i) at[i] = i;
            std::shuffle(at.begin(), at.end(), rng);
            for (uint32_t row = 0; row < 5; ++row)
                b.index[at[row]] = 2 * row + static_cast<uint32_t>(rng() % 2);
        }
        break;
    case Slots::AnyWith31: b.index[rng() % n] = kMax - 1; break;
    default: break;
    }
    // Entries past n: garbage that a correct copy never reads.
    for (size_t i = n; i < kMax; ++i) b.index[i] = static_cast<uint32_t>(rng() % kMax);
}

uint32_t top_slot(const CopyBlock &b, size_t n) {
    uint32_t top = 0;
    for (size_t i = 0; i < n; ++i) top = b.index[i] > top ? b.index[i] : top;
    return top;
}

// One selection, several buffers and offsets: the tables depend on the slots only.
void check_case(size_t n, Slots kind, std::mt19937_64 &rng, size_t &neon_runs) {
    CopyBlock b;
    draw_slots(b, n, kind, rng);
    const CopyFn portable = select_copy(b, n, false);
    const CopyFn simd = select_copy(b, n, true);
    if (!portable || !simd) {
        fail("%zu events, %s: select_copy returned nullptr", n, name(kind));
        return;
    }
    // The NEON copy serves 2 events and more at slots below 10; there select_copy must not
    // hand out the portable routine (else this program would check it against itself).
    const bool neon_expected = n >= 2 && top_slot(b, n) < 10;
    if (neon_expected && simd == portable) {
        fail("%zu events, %s (top slot %" PRIu32 "): select_copy(simd) gave the portable copy",
             n, name(kind), top_slot(b, n));
        describe(b, n);
    }
    if (!neon_expected && simd != portable) {
        fail("%zu events, %s (top slot %" PRIu32 "): a NEON copy where the portable one is due",
             n, name(kind), top_slot(b, n));
        describe(b, n);
    }
    for (int round = 0; round < 8; ++round) {
        for (size_t s = 0; s < kMax; ++s) b.buf[s] = random_value(rng);
        for (size_t i = 0; i < kMax; ++i) b.offset[i] = random_value(rng);
        std::vector<uint64_t> expected(n), got_portable, got_simd;
        for (size_t i = 0; i < n; ++i) expected[i] = b.buf[b.index[i]] + b.offset[i];  // mod 2^64
        const CopyBlock before = b;
        if (!run(portable, b, n, got_portable, "portable") || !run(simd, b, n, got_simd, "simd")) {
            describe(b, n);
            continue;
        }
        if (simd != portable) ++neon_runs;
        if (std::memcmp(before.buf, b.buf, sizeof b.buf) != 0 ||
            std::memcmp(before.offset, b.offset, sizeof b.offset) != 0 ||
            std::memcmp(before.index, b.index, sizeof b.index) != 0)
            fail("%zu events, %s: a copy changed the block", n, name(kind));
        for (size_t i = 0; i < n; ++i) {
            if (got_portable[i] != expected[i] || got_simd[i] != expected[i]) {
                fail("%zu events, %s, event %zu (slot %" PRIu32 "): expected %" PRIu64
                     ", portable %" PRIu64 ", simd (%s) %" PRIu64,
                     n, name(kind), i, b.index[i], expected[i], got_portable[i],
                     simd == portable ? "portable" : "NEON", got_simd[i]);
                describe(b, n);
                break;
            }
        }
    }
}

// For every count and every set of rows (bit r: slot 2r or 2r+1 used) that many events
// can use, and with slot 31 (row mask "31+"): the address of the routine select_copy
// picks. aarch64_copy_count.py links this program at a fixed address (-no-pie) and names
// the routines from its symbol table.
int print_selection() {
    std::printf("# events rows routine-address (rows: bit r = slot 2r or 2r+1 in use; "
                "\"slot31\": slot 31 in use)\n");
    for (size_t n = 1; n <= kMax; ++n) {
        for (unsigned rows = 1; rows < 32; ++rows) {
            std::vector<uint32_t> used;
            for (uint32_t r = 0; r < 5; ++r)
                if (rows & (1u << r)) used.push_back(2 * r + (r % 2));  // either slot of the row
            if (used.size() > n) continue;
            CopyBlock b;
            for (size_t i = 0; i < n; ++i) b.index[i] = used[i % used.size()];
            std::printf("%zu %u %p\n", n, rows, reinterpret_cast<void *>(select_copy(b, n, true)));
        }
        CopyBlock b;
        b.index[n - 1] = kMax - 1;
        std::printf("%zu slot31 %p\n", n, reinterpret_cast<void *>(select_copy(b, n, true)));
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc == 2 && std::strcmp(argv[1], "--selection") == 0) return print_selection();
    if (argc != 1) {
        std::fprintf(stderr, "usage: counter_copy_aarch64_check [--selection]\n");
        return 2;
    }
    if (!simd_copy_available()) fail("simd_copy_available() is false on AArch64");
    CopyBlock empty;
    if (select_copy(empty, 0, true) || select_copy(empty, kMax + 1, true))
        fail("select_copy accepted 0 or %zu events", kMax + 1);

    std::mt19937_64 rng(20240611);
    size_t cases = 0, neon_runs = 0;
    for (size_t n = 1; n <= kMax; ++n) {
        for (Slots kind : kKinds) {
            for (int rep = 0; rep < 6; ++rep, ++cases) check_case(n, kind, rng, neon_runs);
        }
    }
    // A run that never reached a NEON routine proves nothing about it.
    if (neon_runs == 0) fail("no case ran a NEON copy");
    std::printf("%zu cases (events 1..%zu, 8 buffers each): %zu NEON runs compared with the "
                "portable copy and the expected values; %d failure(s)\n",
                cases, kMax, neon_runs, failures);
    return failures == 0 ? 0 : 1;
}
