// Tests of the recount simulator itself: each Apple behaviour of apple-recount.md under each
// knob. Offsets and sizes are spelled out here from the reference, not taken from the
// simulator's headers, so a layout slip in the simulator fails a test.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rcsim.h"

// Apple's C signatures (apple-recount.md §1–§5).
extern "C" {
struct rcsim_test_timebase {
    uint32_t numer;
    uint32_t denom;
};
int thread_selfcounts(uint32_t kind, void *dst, size_t size);
int proc_pidinfo(int pid, int flavor, uint64_t arg, void *buffer, int buffersize);
int proc_pid_rusage(int pid, int flavor, void **buffer);
int mach_timebase_info(rcsim_test_timebase *info);
int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
}

namespace {

constexpr int kThreadCounts = 34;  // PROC_PIDTHREADCOUNTS
constexpr size_t kRusageSize[] = {96, 144, 160, 232, 296, 304, 464};
constexpr uint8_t kSentinel = 0xA5;
constexpr uint64_t kSentinelWord = 0xA5A5A5A5A5A5A5A5ull;

// rusage_info offsets (§3).
constexpr size_t kUserTime = 16, kSystemTime = 24, kPhysFootprint = 72, kStart = 80, kExit = 88;
constexpr size_t kInstructions = 248, kCycles = 256, kUserP = 304, kSystemP = 312, kInstrP = 320,
                 kCyclesP = 328;

const char *const kKnobs[] = {"RCSIM_MACOS", "RCSIM_PERF_LEVELS", "RCSIM_P_SHARE",
                              "RCSIM_VM",    "RCSIM_TIMEBASE",    "RCSIM_EUID"};

uint64_t ns_of(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
uint64_t thread_ns() { return ns_of(CLOCK_THREAD_CPUTIME_ID); }
uint64_t process_ns() { return ns_of(CLOCK_PROCESS_CPUTIME_ID); }
uint64_t my_tid() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

// Burns `ms` milliseconds of the calling thread's CPU time.
void spin_ms(unsigned ms) {
    const uint64_t end = thread_ns() + ms * 1000000ull;
    volatile uint64_t x = 0;
    while (thread_ns() < end)
        for (int i = 0; i < 1000; ++i) x = x + static_cast<uint64_t>(i);
}

// The documented model: ticks = ns × denom / numer; cycles = 3 × ns; P = round(total × share).
uint64_t to_ticks(uint64_t ns, uint64_t numer = 125, uint64_t denom = 3) { return ns * denom / numer; }
uint64_t p_part(uint64_t total, double share) {
    return static_cast<uint64_t>(std::round(static_cast<long double>(total) * share));
}

uint64_t word(const void *buf, size_t offset) {
    uint64_t v;
    std::memcpy(&v, static_cast<const unsigned char *>(buf) + offset, sizeof v);
    return v;
}

struct Bytes {
    unsigned char b[1024];
    Bytes() { std::memset(b, kSentinel, sizeof b); }
    uint64_t at(size_t offset) const { return word(b, offset); }
    bool untouched_from(size_t offset) const {
        for (size_t i = offset; i < sizeof b; ++i)
            if (b[i] != kSentinel) return false;
        return true;
    }
};

int rusage(int pid, int flavor, Bytes *out) { return proc_pid_rusage(pid, flavor, reinterpret_cast<void **>(out->b)); }

class Rcsim : public ::testing::Test {
protected:
    void SetUp() override { clear(); }
    void TearDown() override { clear(); }
    static void clear() {
        for (const char *k : kKnobs) unsetenv(k);
        rcsim_reset();
    }
    static void knob(const char *name, const char *value) {
        setenv(name, value, 1);
        rcsim_reset();
    }
};

// ---------------------------------------------------------------- thread_selfcounts

TEST_F(Rcsim, SelfcountsCpiFollowsThreadCpuTime) {
    spin_ms(5);
    Bytes buf;
    const uint64_t before = thread_ns();
    ASSERT_EQ(thread_selfcounts(1, buf.b, 16), 0);
    const uint64_t after = thread_ns();
    const uint64_t instructions = buf.at(0), cycles = buf.at(8);
    EXPECT_GE(cycles, 3 * before);
    EXPECT_LE(cycles, 3 * after);
    EXPECT_EQ(instructions, 2 * cycles);
    EXPECT_TRUE(buf.untouched_from(16));
}

// ---------------------------------------------------------------- proc_pid_rusage

TEST_F(Rcsim, RusageV6OfSelf) {
    spin_ms(5);
    Bytes ri;
    const uint64_t before = process_ns();
    ASSERT_EQ(rusage(getpid(), 6, &ri), 0);
    const uint64_t after = process_ns();
    EXPECT_GE(ri.at(kCycles), 3 * before);
    EXPECT_LE(ri.at(kCycles), 3 * after);
    EXPECT_EQ(ri.at(kInstructions), 2 * ri.at(kCycles));
    EXPECT_EQ(ri.at(kCyclesP), p_part(ri.at(kCycles), 0.75));
    EXPECT_EQ(ri.at(kInstrP), p_part(ri.at(kInstructions), 0.75));
    EXPECT_EQ(ri.at(kUserP), p_part(ri.at(kUserTime), 0.75));
    EXPECT_EQ(ri.at(kSystemP), p_part(ri.at(kSystemTime), 0.75));
    EXPECT_GT(ri.at(kUserTime), 0u);
    EXPECT_GT(ri.at(kPhysFootprint), 0u);
    EXPECT_GT(ri.at(kStart), 0u);
    EXPECT_EQ(ri.at(kExit), 0u);
    EXPECT_EQ(ri.at(kRusageSize[6] - 8), 0u);
    EXPECT_TRUE(ri.untouched_from(kRusageSize[6]));
}

}  // namespace
