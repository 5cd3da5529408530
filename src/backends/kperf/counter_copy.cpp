#include "backends/kperf/counter_copy.hpp"

#include <array>
#include <cstdint>
#include <utility>

#include "kpc/errors.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define KPC_HAVE_AVX2_COPY 1
#else
#define KPC_HAVE_AVX2_COPY 0
#endif

#if KPC_HAVE_NEON_COPY  // counter_copy.hpp
#include <arm_neon.h>
#endif

namespace kpc::kperf {

namespace {

constexpr size_t kMax = KP_KPC_MAX_COUNTERS;

// Portable: per event an index load, an offset load, an add and a store.
template <size_t... I>
inline void copy_events(const CopyBlock *b, uint64_t *v, std::index_sequence<I...>) noexcept {
    ((v[I] = b->buf[b->index[I]] + b->offset[I]), ...);
}

template <size_t N>
int copy_scalar(const CopyBlock *b) noexcept {
    copy_events(b, b->out, std::make_index_sequence<N>{});
    return KP_OK;
}

template <size_t... I>
constexpr std::array<CopyFn, sizeof...(I)> scalar_table(std::index_sequence<I...>) {
    return {{&copy_scalar<I + 1>...}};
}
constexpr auto kScalar = scalar_table(std::make_index_sequence<kMax>{});

#if KPC_HAVE_AVX2_COPY

// Events At..At+3 with one gather (vpgatherdq: four 64-bit slots picked by four 32-bit
// indices), one add and one store.
template <size_t At>
__attribute__((target("avx2"), always_inline)) inline void copy4(const CopyBlock *b,
                                                                 uint64_t *v) noexcept {
    const __m128i idx = _mm_loadu_si128(reinterpret_cast<const __m128i *>(b->index + At));
    __m256i x = _mm256_i32gather_epi64(reinterpret_cast<const long long *>(b->buf), idx, 8);
    x = _mm256_add_epi64(x, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b->offset + At)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(v + At), x);
}

template <size_t N, size_t... G>
__attribute__((target("avx2"), always_inline)) inline void copy_groups(
    const CopyBlock *b, uint64_t *v, std::index_sequence<G...>) noexcept {
    (copy4<4 * G>(b, v), ...);
    // A partial last group is done as the four events ending at N - 1: it writes a few
    // values twice, with the same result, instead of masking or looping.
    if constexpr (N % 4 != 0) copy4<N - 4>(b, v);
}

// N >= 4 (fewer events use the portable copy).
template <size_t N>
__attribute__((target("avx2"))) int copy_avx2(const CopyBlock *b) noexcept {
    copy_groups<N>(b, b->out, std::make_index_sequence<N / 4>{});
    return KP_OK;
}

template <size_t... I>
constexpr std::array<CopyFn, sizeof...(I)> avx2_table(std::index_sequence<I...>) {
    return {{(I + 1 < 4 ? kScalar[I] : &copy_avx2<(I + 1 < 4 ? 4 : I + 1)>)...}};
}
constexpr auto kAvx2 = avx2_table(std::make_index_sequence<kMax>{});

#endif

#if KPC_HAVE_NEON_COPY

// AArch64. The NEON copies reach buf's slots 0..9 (the counters of Apple's chips), seen as
// five 16-byte rows: row r holds slots 2r and 2r+1 and fills one NEON register. One TBL
// reads up to four registers, so copy_neon<N, Skip> loads four rows, all but row Skip,
// when the events leave that row unused (Skip 0..4; Skip 4 is the common case, slots
// 0..7, and loads with one LD1), or for Skip = kAllRows all five: rows 0..3 for the TBL
// and row 4 for a TBX after it. Each pair of events is then one TBL (16 byte indices
// from block->shuffle, computed by select_copy), one TBX more for kAllRows, and one
// 64-bit add of the pair's two offsets; the compiler pairs the loads of indices and
// offsets into LDPs (clang all of them, GCC 12 most). Events go in groups of up to 4 pairs, 8 values, stored with one ST1
// of up to four registers. The rows travel as two values, `table` (four registers) and
// `row4` (kAllRows only): no arrays or structs of vectors, to which GCC gives a stack
// frame that it then does not use (two instructions).
constexpr size_t kRows = kNeonSlots / 2;
constexpr size_t kAllRows = kRows;  // Skip value: no row left out
constexpr size_t kPairsPerGroup = 4;
// Skipping a row other than 4 is worth a routine only where a row can be free: 8 events
// at most on 10 counters (more take repeated slots).
constexpr size_t kSkipMaxEvents = 8;

// The instruction count (bench/kperf_cost/aarch64_copy_count.py) compiles this file with
// KPC_COPY_EMIT_ALL defined, so that the routines select_copy never picks are in the
// object too and every routine can be compared with the portable copy.
#if defined(KPC_COPY_EMIT_ALL)
#define KPC_COPY_ROUTINE __attribute__((used))
#else
#define KPC_COPY_ROUTINE
#endif

// The rows of the TBL table: 0..3, or all but Skip.
template <size_t Skip>
__attribute__((always_inline)) inline uint8x16x4_t load_table(const uint8_t *buf) noexcept {
    if constexpr (Skip >= 4) {
        return vld1q_u8_x4(buf);  // one LD1 of four registers
    } else {
        // Separate loads, which the compiler pairs into LDPs where the rows are adjacent
        // (from an LD1 of three, GCC 12 copies the registers into place: 3 MOVs more).
        constexpr size_t r0 = Skip == 0 ? 1 : 0, r1 = Skip <= 1 ? 2 : 1, r2 = Skip <= 2 ? 3 : 2;
        return {{vld1q_u8(buf + 16 * r0), vld1q_u8(buf + 16 * r1), vld1q_u8(buf + 16 * r2),
                 vld1q_u8(buf + 64)}};
    }
}

// Events 2P and 2P+1: their slots' counts plus their offsets. For an odd N the last pair
// also loads offset[N], a member of the array (N < 32), and its sum is never stored.
template <size_t Skip, size_t P>
__attribute__((always_inline)) inline uint64x2_t pair_sum(const CopyBlock *b, uint8x16x4_t table,
                                                          uint8x16_t row4) noexcept {
    constexpr size_t per_pair = Skip == kAllRows ? 2 : 1;
    uint8x16_t x = vqtbl4q_u8(table, vld1q_u8(b->shuffle[P * per_pair]));
    if constexpr (Skip == kAllRows) x = vqtbx1q_u8(x, row4, vld1q_u8(b->shuffle[P * 2 + 1]));
    return vaddq_u64(vreinterpretq_u64_u8(x), vld1q_u64(b->offset + 2 * P));
}

// Stores a group's pairs at v: one ST1 of all of them, or when the group ends with the
// unpaired last event of an odd count, one ST1 of the others and that event's 8 bytes.
template <bool OddEnd>
__attribute__((always_inline)) inline void store_group(uint64_t *v, uint64x2_t a) noexcept {
    if constexpr (OddEnd) vst1_u64(v, vget_low_u64(a));
    else vst1q_u64(v, a);
}
template <bool OddEnd>
__attribute__((always_inline)) inline void store_group(uint64_t *v, uint64x2_t a,
                                                       uint64x2_t b) noexcept {
    if constexpr (OddEnd) {
        vst1q_u64(v, a);
        vst1_u64(v + 2, vget_low_u64(b));
    } else {
        vst1q_u64_x2(v, (uint64x2x2_t{{a, b}}));
    }
}
template <bool OddEnd>
__attribute__((always_inline)) inline void store_group(uint64_t *v, uint64x2_t a, uint64x2_t b,
                                                       uint64x2_t c) noexcept {
    if constexpr (OddEnd) {
        vst1q_u64_x2(v, (uint64x2x2_t{{a, b}}));
        vst1_u64(v + 4, vget_low_u64(c));
    } else {
        vst1q_u64_x3(v, (uint64x2x3_t{{a, b, c}}));
    }
}
template <bool OddEnd>
__attribute__((always_inline)) inline void store_group(uint64_t *v, uint64x2_t a, uint64x2_t b,
                                                       uint64x2_t c, uint64x2_t d) noexcept {
    if constexpr (OddEnd) {
        vst1q_u64_x3(v, (uint64x2x3_t{{a, b, c}}));
        vst1_u64(v + 6, vget_low_u64(d));
    } else {
        vst1q_u64_x4(v, (uint64x2x4_t{{a, b, c, d}}));
    }
}

// Group G: pairs 4G + R for the R given.
template <size_t N, size_t Skip, size_t G, size_t... R>
__attribute__((always_inline)) inline void copy_group(const CopyBlock *b, uint8x16x4_t table,
                                                      uint8x16_t row4, uint64_t *v,
                                                      std::index_sequence<R...>) noexcept {
    constexpr size_t first = G * kPairsPerGroup;
    constexpr bool odd_end = N % 2 == 1 && first + sizeof...(R) == (N + 1) / 2;
    store_group<odd_end>(v + 2 * first, pair_sum<Skip, first + R>(b, table, row4)...);
}

template <size_t N, size_t Skip, size_t... G>
__attribute__((always_inline)) inline void copy_groups(const CopyBlock *b, uint8x16x4_t table,
                                                       uint8x16_t row4, uint64_t *v,
                                                       std::index_sequence<G...>) noexcept {
    constexpr size_t pairs = (N + 1) / 2;
    (copy_group<N, Skip, G>(b, table, row4, v,
                            std::make_index_sequence<(pairs - G * kPairsPerGroup < kPairsPerGroup
                                                          ? pairs - G * kPairsPerGroup
                                                          : kPairsPerGroup)>{}),
     ...);
}

// N events whose slots are all below 10 and outside row Skip (if Skip < kAllRows).
template <size_t N, size_t Skip>
KPC_COPY_ROUTINE int copy_neon(const CopyBlock *b) noexcept {
    const uint8_t *buf = reinterpret_cast<const uint8_t *>(b->buf);
    const uint8x16x4_t table = load_table<Skip>(buf);
    const uint8x16_t row4 = Skip == kAllRows ? vld1q_u8(buf + 64) : vdupq_n_u8(0);  // else unused
    constexpr size_t groups = ((N + 1) / 2 + kPairsPerGroup - 1) / kPairsPerGroup;
    copy_groups<N, Skip>(b, table, row4, b->out, std::make_index_sequence<groups>{});
    return KP_OK;
}

// Which NEON routines exist: from 2 events on (1 event takes 9 or 10 instructions, the
// portable copy 9), for Skip 4 every count, for Skip 0..3 up to kSkipMaxEvents, for
// kAllRows from 5 events on. Each takes fewer instructions than the portable copy, and
// select_neon picks the shortest that fits. Measured, not guessed:
// bench/kperf_cost/aarch64_copy_count.py counts every routine in the cross-compiled object
// and fails when select_copy's pick for some count and rows is not the shortest.
constexpr bool neon_exists(size_t n, size_t skip) {
    if (n < 2) return false;
    if (skip == kAllRows) return n > 4;  // up to 4 events always leave a row free
    return skip == 4 || n <= kSkipMaxEvents;
}

template <size_t Skip, size_t... I>
constexpr std::array<CopyFn, sizeof...(I)> neon_row(std::index_sequence<I...>) {
    return {{(neon_exists(I + 1, Skip) ? &copy_neon<I + 1, Skip> : nullptr)...}};
}
template <size_t... S>
constexpr std::array<std::array<CopyFn, kMax>, sizeof...(S)> neon_table(std::index_sequence<S...>) {
    return {{neon_row<S>(std::make_index_sequence<kMax>{})...}};
}
// [Skip][N - 1]: the NEON copy, or nullptr.
constexpr auto kNeon = neon_table(std::make_index_sequence<kAllRows + 1>{});

// When several rows are free, the one whose routine loads its table in the fewest
// instructions: row 4 (one LD1), rows 0 and 2 (two LDPs), rows 1 and 3 (an LDP, two LDRs).
constexpr size_t kSkipPreference[kRows] = {4, 0, 2, 1, 3};

// The TBL (and for kAllRows TBX) byte indices of events [0, n), as CopyBlock::shuffle
// describes: the byte at (slot's row's register) * 16 + (slot % 2) * 8 + byte.
void fill_shuffle(CopyBlock &b, size_t n, size_t skip) noexcept {
    const size_t per_pair = skip == kAllRows ? 2 : 1;
    for (size_t pair = 0; pair < (n + 1) / 2; ++pair) {
        for (size_t half = 0; half < 2; ++half) {
            const size_t event = 2 * pair + half;
            const size_t slot = event < n ? b.index[event] : 0;
            const size_t row = slot / 2;
            // The row's register in the TBL table, or in the TBX table (row 4, kAllRows).
            constexpr size_t kNone = SIZE_MAX;
            size_t tbl = kNone, tbx = kNone;
            if (event < n && skip == kAllRows && row == 4) tbx = 0;
            else if (event < n) tbl = row < skip ? row : row - 1;
            for (size_t byte = 0; byte < 8; ++byte) {
                const size_t at = slot % 2 * 8 + byte;
                b.shuffle[pair * per_pair][half * 8 + byte] =
                    tbl == kNone ? 0xff : static_cast<uint8_t>(tbl * 16 + at);
                if (per_pair == 2)
                    b.shuffle[pair * 2 + 1][half * 8 + byte] =
                        tbx == kNone ? 0xff : static_cast<uint8_t>(tbx * 16 + at);
            }
        }
    }
}

// The NEON copy for these events (slots all below 10), with its tables filled; nullptr
// where there is none.
CopyFn select_neon(CopyBlock &b, size_t n) noexcept {
    unsigned rows_used = 0;
    for (size_t i = 0; i < n; ++i) {
        if (b.index[i] >= kNeonSlots) return nullptr;
        rows_used |= 1u << (b.index[i] / 2);
    }
    size_t skip = kAllRows;
    for (size_t row : kSkipPreference) {
        if (!(rows_used & (1u << row)) && kNeon[row][n - 1]) {
            skip = row;
            break;
        }
    }
    const CopyFn fn = kNeon[skip][n - 1];
    if (fn) fill_shuffle(b, n, skip);
    return fn;
}

#endif

}  // namespace

CopyFn select_copy(CopyBlock &block, size_t events, bool simd) noexcept {
    if (events == 0 || events > kMax) return nullptr;
#if KPC_HAVE_AVX2_COPY
    (void)block;
    if (simd) return kAvx2[events - 1];
#elif KPC_HAVE_NEON_COPY
    if (simd)
        if (CopyFn fn = select_neon(block, events)) return fn;
#else
    (void)block;
    (void)simd;
#endif
    return kScalar[events - 1];
}

bool simd_copy_available() noexcept {
#if KPC_HAVE_NEON_COPY
    return true;  // NEON (Advanced SIMD) is mandatory on AArch64
#elif KPC_HAVE_AVX2_COPY
    // Checks the CPU flag and that the OS saves the YMM registers.
    __builtin_cpu_init();  // harmless if done; needed if called before constructors ran
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

}  // namespace kpc::kperf
