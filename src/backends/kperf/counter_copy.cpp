#include "backends/kperf/counter_copy.hpp"

#include <array>
#include <utility>

#include "kpc/errors.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define KPC_HAVE_AVX2_COPY 1
#else
#define KPC_HAVE_AVX2_COPY 0
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

}  // namespace

CopyFn select_copy(size_t events, bool avx2) noexcept {
    if (events == 0 || events > kMax) return nullptr;
#if KPC_HAVE_AVX2_COPY
    if (avx2) return kAvx2[events - 1];
#else
    (void)avx2;
#endif
    return kScalar[events - 1];
}

bool avx2_copy_available() noexcept {
#if KPC_HAVE_AVX2_COPY
    // Checks the CPU flag and that the OS saves the YMM registers.
    __builtin_cpu_init();  // harmless if done; needed if called before constructors ran
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

}  // namespace kpc::kperf
