// kpc check: workloads whose effect on a counter is known in advance. Each runs on the
// calling thread; the compiler cannot remove or reshape the parts that matter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kpc_cli {

// The counted loop: on x86-64 and AArch64 each iteration executes exactly
// kLoopInstructions instructions, kLoopBranches of them branches (inline assembly: four
// dependent multiplies, a decrement and the loop branch). Elsewhere it is a plain C loop
// of unknown length and kHaveExactLoop is false.
#if defined(__x86_64__) || defined(__aarch64__)
constexpr bool kHaveExactLoop = true;
#else
constexpr bool kHaveExactLoop = false;
#endif
constexpr unsigned kLoopInstructions = 6;
constexpr unsigned kLoopBranches = 1;
void counted_loop(uint64_t iterations);

// One data-dependent branch per element: taken when the element is odd. Random bits
// mispredict about half the time; constant bits almost never.
void branch_loop(const std::vector<uint8_t> &bits);
std::vector<uint8_t> random_bits(size_t n);
std::vector<uint8_t> constant_bits(size_t n);

// A random cyclic walk over cache lines of a buffer: every step is one dependent load of a
// line the previous step did not touch, so the working set decides where loads hit.
class PointerChase {
public:
    explicit PointerChase(size_t bytes);
    // Follow `steps` links; returns where it ended so the walk cannot be optimised away.
    const void *walk(size_t steps) const;

private:
    std::vector<uint64_t> lines_;  // 8 words (64 bytes) per line; word 0 = next line's address
};

// Map `pages` fresh anonymous pages (no transparent huge pages), write one byte to each,
// unmap them. Each write takes exactly one page fault. Returns the page size.
size_t touch_fresh_pages(size_t pages);

// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), in nanoseconds.
uint64_t thread_cpu_ns();

// Spin until the calling thread has used at least `ns` of CPU time.
void burn_cpu(uint64_t ns);

}  // namespace kpc_cli
