// Shared helpers of the emulated-PMU tests (tests/pmu/README.md): a loop whose user-space
// instruction count is known exactly, and the guest's own word on how exact the PMU is.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

namespace kpc_pmu {

// Runs `n` iterations (n >= 1) of `1: subs x0, x0, #1; b.ne 1b`: exactly 2n instructions
// retired in user space. noinline so every call pays the same call overhead.
__attribute__((noinline)) inline void exact_loop(uint64_t n) {
#if defined(__aarch64__)
    asm volatile("mov x0, %0\n"
                 "1: subs x0, x0, #1\n"
                 "b.ne 1b\n"
                 :
                 : "r"(n)
                 : "x0", "cc");
#else
    // Not an exact count: these tests only mean something in the aarch64 guest.
    for (volatile uint64_t i = 0; i < n; ++i) {
    }
#endif
}

// KPC_PMU_GUEST_ICOUNT_SHIFT, set by the guest's /init from QEMU's -icount shift=N: -1
// when unset, i.e. not in the guest whose PMU counts exactly. Decided independently of
// libkpc, so a skip never depends on the code under test.
inline int icount_shift() {
    const char *v = std::getenv("KPC_PMU_GUEST_ICOUNT_SHIFT");
    if (v == nullptr || *v == '\0') return -1;
    char *end = nullptr;
    long s = std::strtol(v, &end, 10);
    if (*end != '\0' || s < 0 || s > 10) return -1;
    return static_cast<int>(s);
}

// Why these tests cannot assert here, or "" in the guest.
inline std::string not_in_guest() {
    if (icount_shift() >= 0) return "";
    return "not in the emulated-PMU guest (KPC_PMU_GUEST_ICOUNT_SHIFT unset): exact counts need "
           "QEMU -icount; run scripts/ci/pmu-guest.sh";
}

}  // namespace kpc_pmu

// First statement of every test: skip, with the reason, outside the guest.
#define KPC_PMU_REQUIRE_GUEST()                                       \
    do {                                                              \
        const std::string why_ = ::kpc_pmu::not_in_guest();           \
        if (!why_.empty()) GTEST_SKIP() << why_;                      \
    } while (0)
