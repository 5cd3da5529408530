#include "cli/check_workloads.hpp"

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <new>
#include <random>
#include <utility>

namespace kpc_cli {
namespace {

// Where the branch loop stores, so the store (and so the branch around it) must stay.
volatile size_t g_branch_sink;

constexpr size_t kWordsPerLine = 8;

}  // namespace

void counted_loop(uint64_t iterations) {
    if (iterations == 0) return;
    uint64_t x = 3;
#if defined(__x86_64__)
    __asm__ volatile(
        "1:\n\t"
        "imul %[x], %[x]\n\t"
        "imul %[x], %[x]\n\t"
        "imul %[x], %[x]\n\t"
        "imul %[x], %[x]\n\t"
        "sub $1, %[n]\n\t"
        "jnz 1b\n\t"
        : [n] "+r"(iterations), [x] "+r"(x)
        :
        : "cc");
#elif defined(__aarch64__)
    __asm__ volatile(
        "1:\n\t"
        "mul %[x], %[x], %[x]\n\t"
        "mul %[x], %[x], %[x]\n\t"
        "mul %[x], %[x], %[x]\n\t"
        "mul %[x], %[x], %[x]\n\t"
        "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        : [n] "+r"(iterations), [x] "+r"(x)
        :
        : "cc");
#else
    volatile uint64_t v = x;
    for (uint64_t i = 0; i < iterations; ++i) v = v * v;
#endif
}

void branch_loop(const std::vector<uint8_t> &bits) {
    // A conditional volatile store cannot become a conditional move: the branch stays.
    for (size_t i = 0; i < bits.size(); ++i)
        if (bits[i] & 1) g_branch_sink = i;
}

std::vector<uint8_t> random_bits(size_t n) {
    std::vector<uint8_t> bits(n);
    std::mt19937_64 rng(0x6b7063);  // fixed seed: the same sequence on every run
    for (size_t i = 0; i < n; ++i) bits[i] = static_cast<uint8_t>(rng() & 1);
    return bits;
}

std::vector<uint8_t> constant_bits(size_t n) { return std::vector<uint8_t>(n, 1); }

PointerChase::PointerChase(size_t bytes) : lines_(std::max<size_t>(bytes / 64, 2) * kWordsPerLine) {
    const size_t n = lines_.size() / kWordsPerLine;
    // Sattolo's shuffle: a random permutation that is one single cycle through every line.
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
    std::mt19937_64 rng(0x636865636b);
    for (size_t i = n - 1; i > 0; --i)
        std::swap(order[i], order[std::uniform_int_distribution<size_t>(0, i - 1)(rng)]);
    for (size_t i = 0; i < n; ++i) {
        uint64_t *from = &lines_[order[i] * kWordsPerLine];
        const uint64_t *to = &lines_[order[(i + 1) % n] * kWordsPerLine];
        from[0] = reinterpret_cast<uintptr_t>(to);
    }
}

const void *PointerChase::walk(size_t steps) const {
    const uint64_t *p = lines_.data();
    for (size_t i = 0; i < steps; ++i) p = reinterpret_cast<const uint64_t *>(*p);
    // An empty asm that "uses" p: the loads above are needed.
    __asm__ volatile("" : : "r"(p) : "memory");
    return p;
}

size_t touch_fresh_pages(size_t pages) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t len = pages * page;
    void *mem = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
    if (mem == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_NOHUGEPAGE
    // A huge page would serve 512 pages with one fault.
    madvise(mem, len, MADV_NOHUGEPAGE);
#endif
    volatile char *bytes = static_cast<volatile char *>(mem);
    for (size_t i = 0; i < pages; ++i) bytes[i * page] = 1;
    munmap(mem, len);
    return page;
}

uint64_t thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

void burn_cpu(uint64_t ns) {
    const uint64_t end = thread_cpu_ns() + ns;
    while (thread_cpu_ns() < end) counted_loop(1000);
}

}  // namespace kpc_cli
