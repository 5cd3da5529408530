// Reading a perf_event counter from user space: the event's mmap page
// (struct perf_event_mmap_page), its seqlock protocol, and the instruction that reads a
// hardware counter (arm64 mrs, x86-64 rdpmc). The protocol is the one documented in
// include/uapi/linux/perf_event.h; a read that the page does not allow returns false and
// the caller uses read() instead.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kpc::perf {

// Whether this build has a counter-read instruction (arm64, x86-64).
#if defined(__aarch64__) || defined(__x86_64__)
constexpr bool kUserReadArch = true;
#else
constexpr bool kUserReadArch = false;
#endif

// Hardware counter `counter` (the page's index - 1). Only called when the page allows it.
__attribute__((always_inline)) inline uint64_t read_pmc(uint32_t counter) noexcept {
#if defined(__aarch64__)
    // mrs encodes the register, so the counter number picks one of 32 stubs: 0-30 read
    // PMEVCNTR<n>_EL0, 31 the cycle counter PMCCNTR_EL0 (the kernel publishes it as index
    // 32). A switch would add a bounds check and a table load. Built with branch
    // protection, each stub starts with the landing pad "bti j" and is 16 bytes, else 8.
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define KPC_STUB(reg) "bti j\n mrs %[v], " reg "\n b 2f\n nop\n"
#define KPC_STUB_SHIFT "4"
#else
#define KPC_STUB(reg) "mrs %[v], " reg "\n b 2f\n"
#define KPC_STUB_SHIFT "3"
#endif
#define KPC_EVCNT(n) KPC_STUB("pmevcntr" #n "_el0")
    uint64_t v;
    asm volatile("adr x16, 1f\n"
                 "add x16, x16, %[c], uxtw #" KPC_STUB_SHIFT "\n"
                 "br x16\n"
                 "1:\n"
                 KPC_EVCNT(0) KPC_EVCNT(1) KPC_EVCNT(2) KPC_EVCNT(3) KPC_EVCNT(4) KPC_EVCNT(5)
                 KPC_EVCNT(6) KPC_EVCNT(7) KPC_EVCNT(8) KPC_EVCNT(9) KPC_EVCNT(10) KPC_EVCNT(11)
                 KPC_EVCNT(12) KPC_EVCNT(13) KPC_EVCNT(14) KPC_EVCNT(15) KPC_EVCNT(16)
                 KPC_EVCNT(17) KPC_EVCNT(18) KPC_EVCNT(19) KPC_EVCNT(20) KPC_EVCNT(21)
                 KPC_EVCNT(22) KPC_EVCNT(23) KPC_EVCNT(24) KPC_EVCNT(25) KPC_EVCNT(26)
                 KPC_EVCNT(27) KPC_EVCNT(28) KPC_EVCNT(29) KPC_EVCNT(30)
                 KPC_STUB("pmccntr_el0")
                 "2:\n"
                 : [v] "=r"(v)
                 : [c] "r"(counter & 31)
                 : "x16");
#undef KPC_EVCNT
#undef KPC_STUB
#undef KPC_STUB_SHIFT
    return v;
#elif defined(__x86_64__)
    uint32_t lo = 0, hi = 0;
    asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
    return (static_cast<uint64_t>(hi) << 32) | lo;
#else
    (void)counter;
    return 0;
#endif
}

// The clock the page's time fields convert (cap_user_time): arm64's virtual counter, x86's TSC.
inline uint64_t read_user_clock() noexcept {
#if defined(__aarch64__)
    uint64_t v = 0;
    asm volatile("isb\n mrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
#elif defined(__x86_64__)
    uint32_t lo = 0, hi = 0;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (static_cast<uint64_t>(hi) << 32) | lo;
#else
    return 0;
#endif
}

// `raw` holds a counter `width` bits wide (1..64): its value as a signed 64-bit number,
// which the kernel's offset completes (a counter may start negative, to overflow soon).
// `& 63` keeps the shift defined for any width (0 reads as 64) and costs nothing: arm64's
// and x86's shifts by a register take the count modulo 64 anyway.
inline int64_t sign_extend(uint64_t raw, uint32_t width) noexcept {
    const uint32_t shift = (64 - width) & 63;
    return static_cast<int64_t>(raw << shift) >> shift;
}

// One event's count through its page, with `read_counter(counter)` as the instruction
// (tests pass a fake). `times` (may be null) gets the event's enabled and running ns: as
// of the page's last update, or with `now` as of now through cap_user_time's clock
// conversion. False when the page says no (no user access, not on a counter) or, with
// `now`, when the page cannot convert the clock.
// The kernel updates the page on the CPU the thread runs on, so compiler barriers
// suffice (the header's protocol).
template <typename ReadCounter>
__attribute__((always_inline)) inline bool read_page(const volatile perf_event_mmap_page *pc, ReadCounter read_counter,
                      uint64_t *value, uint64_t *times = nullptr, bool now = false) noexcept {
    uint32_t seq = 0;
    do {
        seq = pc->lock;
        asm volatile("" ::: "memory");
        // One test and branch each (a combined condition costs more on the hot path).
        if (__builtin_expect(!pc->cap_user_rdpmc, 0)) return false;
        const uint32_t index = pc->index;
        if (__builtin_expect(index == 0, 0)) return false;
        const uint32_t width = pc->pmc_width;  // the kernel's, 1..64 (sign_extend copes with any)
        *value = static_cast<uint64_t>(pc->offset) +
                 static_cast<uint64_t>(sign_extend(read_counter(index - 1), width));
        if (times) {
            uint64_t delta = 0;
            if (now) {
                if (!pc->cap_user_time) return false;
                uint64_t cyc = read_user_clock();
                if (pc->cap_user_time_short)
                    cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
                const uint32_t shift = pc->time_shift;
                const uint64_t mult = pc->time_mult;
                const uint64_t rem = cyc & ((uint64_t{1} << shift) - 1);
                delta = pc->time_offset + (cyc >> shift) * mult + ((rem * mult) >> shift);
            }
            times[0] = pc->time_enabled + delta;
            times[1] = pc->time_running + delta;  // index != 0: running now
        }
        asm volatile("" ::: "memory");
    } while (pc->lock != seq);
    return true;
}

// The pages of one group's events, mapped read-only, one per fd.
class UserPages {
public:
    UserPages() = default;
    UserPages(const UserPages &) = delete;
    UserPages &operator=(const UserPages &) = delete;
    ~UserPages() { unmap(); }

    // Maps every fd's page; on failure unmaps what it mapped and returns why (with
    // event_names[i] for the fd that failed), else "".
    std::string map(const std::vector<int> &fds, const std::vector<std::string> &event_names);
    void unmap() noexcept;
    bool mapped() const noexcept { return !pages_.empty(); }
    const volatile perf_event_mmap_page *page(size_t i) const noexcept { return pages_[i]; }

    // All values, in fd order, and `times` (enabled, running ns now, from the leader);
    // false (use read()) when any page says no or the group was multiplexed (the
    // leader's enabled != running).
    bool read(uint64_t *values, uint64_t *times) const noexcept {
        if (!read_page(pages_[0], read_pmc, &values[0], times, true)) return false;
        if (times[0] != times[1]) return false;
        for (size_t i = 1; i < pages_.size(); ++i)
            if (!read_page(pages_[i], read_pmc, &values[i])) return false;
        return true;
    }

    // read() without times: kp_thread_sample's path, inlined into it.
    // Pointers, not indices: a one-event group leaves after one comparison.
    __attribute__((always_inline)) bool read_values(uint64_t *values) const noexcept {
        const volatile perf_event_mmap_page *const *p = pages_.data();
        const volatile perf_event_mmap_page *const *const end = p + pages_.size();
        uint64_t times[2];
        if (!read_page(*p, read_pmc, values, times)) return false;
        if (times[0] != times[1]) return false;
        if (++p == end) return true;
        do {
            if (!read_page(*p, read_pmc, ++values)) return false;
        } while (++p != end);
        return true;
    }

private:
    std::vector<const volatile perf_event_mmap_page *> pages_;
};

}  // namespace kpc::perf
