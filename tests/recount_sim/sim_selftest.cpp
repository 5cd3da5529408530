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

int pid_rusage(int pid, int flavor, Bytes *out) { return proc_pid_rusage(pid, flavor, reinterpret_cast<void **>(out->b)); }

// The macOS version of RCSIM_MACOS as a comparable number, 14.2 → 1402.
int version_code(const char *v) {
    int major = 0, minor = 0;
    std::sscanf(v, "%d.%d", &major, &minor);
    return major * 100 + minor;
}

uint64_t getrusage_ns(int who, bool user) {
    rusage ru{};
    getrusage(who, &ru);
    const timeval &t = user ? ru.ru_utime : ru.ru_stime;
    return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_usec) * 1000ull;
}

// CPU time of the calling thread or process before and after a call, to bracket its answer.
struct CpuWindow {
    int who;  // RUSAGE_THREAD or RUSAGE_SELF
    uint64_t total[2], user[2], system[2];
    explicit CpuWindow(int w) : who(w) { take(0); }
    void take(int i) {
        user[i] = getrusage_ns(who, true);
        system[i] = getrusage_ns(who, false);
        total[i] = who == RUSAGE_THREAD ? thread_ns() : process_ns();
    }
    void close() { take(1); }
};

// ---------------------------------------------------------------- each knob variant

struct Variant {
    const char *name;
    const char *macos;  // nullptr: leave every knob unset (the defaults)
    int levels;
    double share;
    bool vm;
    uint32_t numer, denom;

    int version() const { return version_code(macos ? macos : "15.5"); }
    int effective_levels() const { return vm ? 1 : levels; }
};

std::ostream &operator<<(std::ostream &os, const Variant &v) { return os << v.name; }

const Variant kVariants[] = {
    {"defaults", nullptr, 2, 0.75, false, 125, 3},
    {"v15_5", "15.5", 2, 0.75, false, 125, 3},
    {"v15_5_one_level", "15.5", 1, 0.75, false, 125, 3},
    {"v15_5_share_0_3_intel_timebase", "15.5", 2, 0.3, false, 1, 1},
    {"v15_5_share_0", "15.5", 2, 0.0, false, 125, 3},
    {"v15_5_share_1_odd_timebase", "15.5", 2, 1.0, false, 7, 11},
    {"v26_0", "26.0", 2, 0.75, false, 125, 3},
    {"v14_2", "14.2", 2, 0.75, false, 125, 3},
    {"v14_1", "14.1", 2, 0.75, false, 125, 3},
    {"v13_0_one_level", "13.0", 1, 0.75, false, 125, 3},
    {"v12_6", "12.6", 2, 0.75, false, 125, 3},
    {"v10_15", "10.15", 2, 0.75, false, 125, 3},
    {"vm_v15_5", "15.5", 2, 0.75, true, 125, 3},
    {"vm_v12_6", "12.6", 2, 0.75, true, 125, 3},
};

class Knobs : public ::testing::TestWithParam<Variant> {
protected:
    void SetUp() override {
        for (const char *k : kKnobs) unsetenv(k);
        const Variant &v = GetParam();
        if (v.macos != nullptr) {
            char buf[64];
            setenv("RCSIM_MACOS", v.macos, 1);
            setenv("RCSIM_PERF_LEVELS", v.levels == 1 ? "1" : "2", 1);
            std::snprintf(buf, sizeof buf, "%g", v.share);
            setenv("RCSIM_P_SHARE", buf, 1);
            setenv("RCSIM_VM", v.vm ? "1" : "0", 1);
            std::snprintf(buf, sizeof buf, "%u/%u", v.numer, v.denom);
            setenv("RCSIM_TIMEBASE", buf, 1);
        }
        rcsim_reset();
    }
    void TearDown() override {
        for (const char *k : kKnobs) unsetenv(k);
        rcsim_reset();
    }
    uint64_t ticks(uint64_t ns) const { return to_ticks(ns, GetParam().numer, GetParam().denom); }

    // Checks one total (summed over levels) against the CPU window and the model.
    void expect_totals(const uint64_t t[5], const CpuWindow &w, size_t words) const {
        const Variant &v = GetParam();
        if (v.vm) {
            EXPECT_EQ(t[0], 0u);
            EXPECT_EQ(t[1], 0u);
        } else {
            EXPECT_GE(t[1], 3 * w.total[0]) << "cycles = 3 × CPU ns";
            EXPECT_LE(t[1], 3 * w.total[1]) << "cycles = 3 × CPU ns";
            EXPECT_EQ(t[0], 2 * t[1]) << "instructions = 2 × cycles";
        }
        if (words >= 4) {
            EXPECT_GE(t[2], ticks(w.user[0])) << "user time in mach ticks";
            EXPECT_LE(t[2], ticks(w.user[1])) << "user time in mach ticks";
            EXPECT_GE(t[3], ticks(w.system[0])) << "system time in mach ticks";
            EXPECT_LE(t[3], ticks(w.system[1])) << "system time in mach ticks";
        }
        if (words >= 5) EXPECT_EQ(t[4], 0u) << "energy: kern.pervasive_energy is 0";
    }
};

TEST_P(Knobs, TimebaseIsTheKnob) {
    rcsim_test_timebase tb{0, 0};
    ASSERT_EQ(mach_timebase_info(&tb), 0);
    EXPECT_EQ(tb.numer, GetParam().numer);
    EXPECT_EQ(tb.denom, GetParam().denom);
}

TEST_P(Knobs, ThreadSelfcountsEveryKind) {
    const Variant &v = GetParam();
    const bool v13 = v.version() >= 1300, v14_2 = v.version() >= 1402;
    const size_t elem_words[] = {0, 2, 2, 4, 4, 5, 5};
    spin_ms(3);
    for (uint32_t kind : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 64u, 0xFFFFFFFFu}) {
        SCOPED_TRACE("kind " + std::to_string(kind));
        Bytes buf;
        CpuWindow w(RUSAGE_THREAD);
        errno = 0;
        const int rc = thread_selfcounts(kind, buf.b, sizeof buf.b);
        const int err = errno;
        w.close();
        int expected_errno = 0;
        if (v.vm) expected_errno = ENOTSUP;
        else if (!v13 && kind != 1) expected_errno = EINVAL;
        else if (v13 && (kind < 1 || kind > 6)) expected_errno = ENOTSUP;
        if (expected_errno != 0) {
            EXPECT_EQ(rc, -1);
            EXPECT_EQ(err, expected_errno);
            EXPECT_TRUE(buf.untouched_from(0));
            continue;
        }
        ASSERT_EQ(rc, 0) << std::strerror(err);
        const size_t words = elem_words[kind], elem = words * 8;
        const bool per_level = kind % 2 == 0;
        const size_t count = !per_level ? 1 : (v14_2 ? static_cast<size_t>(v.effective_levels()) : 2);
        EXPECT_TRUE(buf.untouched_from(count * elem)) << "copies exactly " << count << " × " << elem << " bytes";
        EXPECT_FALSE(buf.untouched_from(count * elem - 8)) << "the last word is written";

        uint64_t e[2][5] = {}, total[5] = {};
        for (size_t i = 0; i < count; ++i)
            for (size_t k = 0; k < words; ++k) {
                e[i][k] = buf.at(i * elem + k * 8);
                total[k] += e[i][k];
            }
        expect_totals(total, w, words);
        if (per_level && v.effective_levels() == 2) {
            // 14.2+: perf-level order [P, E]; 13.0–14.1: CPU-kind order [E, P].
            const size_t p = v14_2 ? 0 : 1;
            for (size_t k = 0; k < words; ++k)
                EXPECT_EQ(e[p][k], p_part(total[k], v.share)) << "P share of word " << k;
        } else if (per_level && count == 2) {
            // 13.0–14.1 on a one-level machine: everything in entry 0, entry 1 zero.
            for (size_t k = 0; k < words; ++k) EXPECT_EQ(e[1][k], 0u) << "word " << k;
        }

        // A short size truncates; the tail stays untouched.
        Bytes shortbuf;
        ASSERT_EQ(thread_selfcounts(kind, shortbuf.b, count * elem - 8), 0);
        EXPECT_TRUE(shortbuf.untouched_from(count * elem - 8));
        EXPECT_FALSE(shortbuf.untouched_from(0));
    }
}

TEST_P(Knobs, ProcPidinfoThreadCountsOfCallingThread) {
    const Variant &v = GetParam();
    spin_ms(3);
    for (uint64_t arg : {uint64_t{0}, my_tid()}) {
        SCOPED_TRACE("arg " + std::to_string(arg));
        Bytes buf;
        CpuWindow w(RUSAGE_THREAD);
        errno = 0;
        const int rc = proc_pidinfo(getpid(), kThreadCounts, arg, buf.b, sizeof buf.b);
        const int err = errno;
        w.close();
        if (v.version() < 1300 || v.vm) {
            EXPECT_EQ(rc, 0);
            EXPECT_EQ(err, v.version() < 1300 ? EINVAL : ENOTSUP);
            EXPECT_TRUE(buf.untouched_from(0));
            continue;
        }
        const int len = v.effective_levels();
        ASSERT_EQ(rc, 8 + 40 * len) << std::strerror(err);
        uint16_t ptc_len, reserved0;
        uint32_t reserved1;
        std::memcpy(&ptc_len, buf.b, 2);
        std::memcpy(&reserved0, buf.b + 2, 2);
        std::memcpy(&reserved1, buf.b + 4, 4);
        EXPECT_EQ(ptc_len, len);
        EXPECT_EQ(reserved0, 0u);
        EXPECT_EQ(reserved1, 0u);
        EXPECT_TRUE(buf.untouched_from(static_cast<size_t>(rc)));
        uint64_t e[2][5] = {}, total[5] = {};
        for (int i = 0; i < len; ++i)
            for (size_t k = 0; k < 5; ++k) {
                e[i][k] = buf.at(8 + 40 * static_cast<size_t>(i) + 8 * k);
                total[k] += e[i][k];
            }
        expect_totals(total, w, 5);
        if (len == 2)  // always perf-level order [P, E]
            for (size_t k = 0; k < 5; ++k) EXPECT_EQ(e[0][k], p_part(total[k], v.share)) << "word " << k;
    }
}

TEST_P(Knobs, RusageOfSelfEveryFlavor) {
    const Variant &v = GetParam();
    const int max_flavor = v.version() >= 1300 ? 6 : (v.version() >= 1100 ? 5 : 4);
    spin_ms(3);
    for (int flavor = -1; flavor <= 7; ++flavor) {
        SCOPED_TRACE("flavor " + std::to_string(flavor));
        Bytes ri;
        CpuWindow w(RUSAGE_SELF);
        errno = 0;
        const int rc = pid_rusage(getpid(), flavor, &ri);
        const int err = errno;
        w.close();
        if (flavor < 0 || flavor > max_flavor) {
            EXPECT_EQ(rc, -1);
            EXPECT_EQ(err, EINVAL);
            EXPECT_TRUE(ri.untouched_from(0));
            continue;
        }
        ASSERT_EQ(rc, 0) << std::strerror(err);
        const size_t size = kRusageSize[flavor];
        EXPECT_TRUE(ri.untouched_from(size)) << "copies exactly " << size << " bytes";
        EXPECT_EQ(ri.at(size - 8), 0u) << "the last word (0 for a live process) is written";
        EXPECT_GE(ri.at(kUserTime), ticks(w.user[0]));
        EXPECT_LE(ri.at(kUserTime), ticks(w.user[1]));
        EXPECT_GE(ri.at(kSystemTime), ticks(w.system[0]));
        EXPECT_LE(ri.at(kSystemTime), ticks(w.system[1]));
        EXPECT_GT(ri.at(kStart), 0u);
        EXPECT_LE(ri.at(kStart), ticks(ns_of(CLOCK_BOOTTIME)));
        EXPECT_EQ(ri.at(kExit), 0u);
        EXPECT_GT(ri.at(kPhysFootprint), 0u);
        if (flavor >= 4) {
            const uint64_t t[5] = {ri.at(kInstructions), ri.at(kCycles), 0, 0, 0};
            expect_totals(t, w, 2);
        }
        if (flavor >= 6) {
            const bool p_fields = !v.vm && v.effective_levels() == 2;
            EXPECT_EQ(ri.at(kUserP), p_fields ? p_part(ri.at(kUserTime), v.share) : 0u);
            EXPECT_EQ(ri.at(kSystemP), p_fields ? p_part(ri.at(kSystemTime), v.share) : 0u);
            EXPECT_EQ(ri.at(kInstrP), p_fields ? p_part(ri.at(kInstructions), v.share) : 0u);
            EXPECT_EQ(ri.at(kCyclesP), p_fields ? p_part(ri.at(kCycles), v.share) : 0u);
            for (size_t off = 336; off < 464; off += 8) EXPECT_EQ(ri.at(off), 0u) << "offset " << off;
        }
    }
}

// sysctlbyname for an int; returns errno (0 on success).
int sysctl_int(const char *name, int *out) {
    size_t len = sizeof *out;
    errno = 0;
    return sysctlbyname(name, out, &len, nullptr, 0) == 0 && len == sizeof *out ? 0 : errno;
}
int sysctl_string(const char *name, std::string *out) {
    char buf[128];
    size_t len = sizeof buf;
    errno = 0;
    if (sysctlbyname(name, buf, &len, nullptr, 0) != 0) return errno;
    EXPECT_EQ(len, std::strlen(buf) + 1) << name;
    *out = buf;
    return 0;
}

TEST_P(Knobs, Sysctls) {
    const Variant &v = GetParam();
    const int ver = v.version();
    const int levels = v.effective_levels();
    int n = -1;
    std::string s;
    if (ver >= 1200) {
        ASSERT_EQ(sysctl_int("hw.nperflevels", &n), 0);
        EXPECT_EQ(n, levels);
    } else {
        EXPECT_EQ(sysctl_int("hw.nperflevels", &n), ENOENT);
    }
    const char *names[2] = {levels == 1 ? "Standard" : "Performance", "Efficiency"};
    for (int level = 0; level < 3; ++level) {
        const std::string oid = "hw.perflevel" + std::to_string(level) + ".name";
        if (ver >= 1300 && level < levels) {
            ASSERT_EQ(sysctl_string(oid.c_str(), &s), 0) << oid;
            EXPECT_EQ(s, names[level]);
        } else {
            EXPECT_EQ(sysctl_string(oid.c_str(), &s), ENOENT) << oid;
        }
    }
    ASSERT_EQ(sysctl_string("kern.osproductversion", &s), 0);
    EXPECT_EQ(s, v.macos ? v.macos : "15.5");
    ASSERT_EQ(sysctl_string("kern.osrelease", &s), 0);
    const int major = ver / 100, minor = ver % 100;
    const int darwin = major == 10 ? minor + 4 : (major >= 26 ? major - 1 : major + 9);
    EXPECT_EQ(s, std::to_string(darwin) + "." + std::to_string(major == 10 ? 0 : minor) + ".0");
    if (v.vm) {
        EXPECT_EQ(sysctl_int("kern.monotonic.supported", &n), ENOENT);
    } else {
        ASSERT_EQ(sysctl_int("kern.monotonic.supported", &n), 0);
        EXPECT_EQ(n, 1);
    }
    ASSERT_EQ(sysctl_int("kern.precise_user_kernel_time", &n), 0);
    EXPECT_EQ(n, 1);
    if (ver >= 1300) {
        ASSERT_EQ(sysctl_int("kern.pervasive_energy", &n), 0);
        EXPECT_EQ(n, 0);
    }
    EXPECT_EQ(sysctl_int("hw.no.such.name", &n), ENOENT);
}

INSTANTIATE_TEST_SUITE_P(Variants, Knobs, ::testing::ValuesIn(kVariants),
                         [](const ::testing::TestParamInfo<Variant> &i) { return std::string(i.param.name); });

// ---------------------------------------------------------------- fixed-knob tests

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

TEST_F(Rcsim, SelfcountsSizeZeroTouchesNothing) {
    Bytes buf;
    EXPECT_EQ(thread_selfcounts(1, buf.b, 0), 0);
    EXPECT_TRUE(buf.untouched_from(0));
    EXPECT_EQ(thread_selfcounts(6, nullptr, 0), 0);
    errno = 0;
    EXPECT_EQ(thread_selfcounts(1, nullptr, 16), -1);
    EXPECT_EQ(errno, EFAULT);
    // One byte is copied, not rejected.
    EXPECT_EQ(thread_selfcounts(4, buf.b, 1), 0);
    EXPECT_TRUE(buf.untouched_from(1));
}

TEST_F(Rcsim, SelfcountsNeverDecrease) {
    uint64_t last[4] = {};
    for (int i = 0; i < 200; ++i) {
        uint64_t now[4];
        ASSERT_EQ(thread_selfcounts(3, now, sizeof now), 0);
        for (int k = 0; k < 4; ++k) EXPECT_GE(now[k], last[k]) << "word " << k << " read " << i;
        std::memcpy(last, now, sizeof now);
    }
}

// ---------------------------------------------------------------- proc_pidinfo protocol

TEST_F(Rcsim, PidinfoBufferSizes) {
    for (int size : {-1, 0, 1, 7}) {
        Bytes buf;
        errno = 0;
        EXPECT_EQ(proc_pidinfo(getpid(), kThreadCounts, 0, buf.b, size), 0) << size;
        EXPECT_EQ(errno, ENOMEM) << size;
        EXPECT_TRUE(buf.untouched_from(0));
    }
    for (int size : {8, 9, 20, 87, 88, 89, 1000}) {
        Bytes buf;
        const int expected = size < 88 ? size : 88;
        EXPECT_EQ(proc_pidinfo(getpid(), kThreadCounts, 0, buf.b, size), expected) << size;
        EXPECT_TRUE(buf.untouched_from(static_cast<size_t>(expected))) << size;
        uint16_t len;
        std::memcpy(&len, buf.b, 2);
        EXPECT_EQ(len, 2) << size;
    }
    errno = 0;
    EXPECT_EQ(proc_pidinfo(getpid(), kThreadCounts, 0, nullptr, 88), 0);
    EXPECT_EQ(errno, EFAULT);
}

TEST_F(Rcsim, PidinfoUnknownFlavorsAndPids) {
    Bytes buf;
    for (int flavor : {0, 2, 33, 35, -1}) {
        errno = 0;
        EXPECT_EQ(proc_pidinfo(getpid(), flavor, 0, buf.b, sizeof buf.b), 0) << flavor;
        EXPECT_EQ(errno, EINVAL) << flavor;
    }
    std::thread other;  // a Linux thread id is not a pid
    std::mutex mu;
    std::condition_variable cv;
    uint64_t other_tid = 0;
    bool done = false;
    other = std::thread([&] {
        std::unique_lock<std::mutex> lock(mu);
        other_tid = my_tid();
        cv.notify_all();
        cv.wait(lock, [&] { return done; });
    });
    {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return other_tid != 0; });
    }
    for (int pid : {-1, 0, 0x7FFFFFFF, static_cast<int>(other_tid)}) {
        errno = 0;
        EXPECT_EQ(proc_pidinfo(pid, kThreadCounts, 0, buf.b, sizeof buf.b), 0) << pid;
        EXPECT_EQ(errno, ESRCH) << pid;
        errno = 0;
        EXPECT_EQ(pid_rusage(pid, 6, &buf), -1) << pid;
        EXPECT_EQ(errno, ESRCH) << pid;
    }
    {
        std::lock_guard<std::mutex> lock(mu);
        done = true;
    }
    cv.notify_all();
    other.join();
    EXPECT_TRUE(buf.untouched_from(0));
}

// Another thread of this process, by its unique id (gettid here, pthread_threadid_np on macOS).
TEST_F(Rcsim, PidinfoOtherThreadOfThisProcess) {
    std::mutex mu;
    std::condition_variable cv;
    int stage = 0;
    uint64_t tid = 0, cpu_before = 0, cpu_after = 0;
    // The worker ends up with clearly more CPU time than the caller, so their counts differ.
    const uint64_t target_ns = thread_ns() + 30000000ull;
    std::thread worker([&] {
        while (thread_ns() < target_ns) spin_ms(1);
        std::unique_lock<std::mutex> lock(mu);
        tid = my_tid();
        cpu_before = thread_ns();
        stage = 1;
        cv.notify_all();
        cv.wait(lock, [&] { return stage == 2; });
        cpu_after = thread_ns();
    });
    Bytes buf;
    uint64_t mine_before;
    {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stage == 1; });
        mine_before = thread_ns();
        ASSERT_EQ(proc_pidinfo(getpid(), kThreadCounts, tid, buf.b, sizeof buf.b), 88);
        stage = 2;
    }
    cv.notify_all();
    worker.join();
    const uint64_t cycles = buf.at(8 + 8) + buf.at(48 + 8);
    EXPECT_GE(cycles, 3 * cpu_before) << "the worker's cycles, not the caller's";
    EXPECT_LE(cycles, 3 * cpu_after);
    EXPECT_EQ(buf.at(8 + 8), p_part(cycles, 0.75));
    EXPECT_GT(cpu_before, mine_before) << "the worker spun longer than the caller ran (test premise)";
    // Gone after join.
    errno = 0;
    EXPECT_EQ(proc_pidinfo(getpid(), kThreadCounts, tid, buf.b, sizeof buf.b), 0);
    EXPECT_EQ(errno, ESRCH);
    for (uint64_t bad : {uint64_t{0x7FFFFFFF}, uint64_t{1} << 40, ~uint64_t{0}}) {
        errno = 0;
        EXPECT_EQ(proc_pidinfo(getpid(), kThreadCounts, bad, buf.b, sizeof buf.b), 0) << bad;
        EXPECT_EQ(errno, ESRCH) << bad;
    }
}

// ---------------------------------------------------------------- other processes

// A forked child that burns `spin` ms of CPU, reports its process CPU time through a pipe,
// then either exits (leaving a zombie until reaped) or waits for the parent to say go.
class Child {
public:
    Child(unsigned spin, bool exit_at_once) {
        if (pipe(up_) != 0 || pipe(down_) != 0) std::abort();
        pid_ = fork();
        if (pid_ == 0) {
            close(up_[0]);
            close(down_[1]);  // so that the parent closing its end is EOF here
            spin_ms(spin);
            const uint64_t ns = process_ns();
            if (write(up_[1], &ns, sizeof ns) != sizeof ns) _exit(2);
            if (!exit_at_once) {
                char c;
                if (read(down_[0], &c, 1) < 0) _exit(3);
            }
            _exit(0);
        }
        close(up_[1]);
        close(down_[0]);
        if (read(up_[0], &reported_ns_, sizeof reported_ns_) != sizeof reported_ns_) reported_ns_ = 0;
        if (exit_at_once) {  // wait for the zombie without reaping it
            siginfo_t si{};
            waitid(P_PID, static_cast<id_t>(pid_), &si, WEXITED | WNOWAIT);
        }
    }
    ~Child() { reap(); }
    pid_t pid() const { return pid_; }
    uint64_t reported_ns() const { return reported_ns_; }
    void reap() {
        if (pid_ <= 0) return;
        close(down_[1]);  // lets a waiting child exit
        close(up_[0]);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }

private:
    int up_[2] = {-1, -1}, down_[2] = {-1, -1};
    pid_t pid_ = -1;
    uint64_t reported_ns_ = 0;
};

TEST_F(Rcsim, ZombieAnswersRusageUntilReaped) {
    Child child(20, true);
    const pid_t pid = child.pid();
    ASSERT_GT(child.reported_ns(), 10000000u);
    Bytes first, second;
    ASSERT_EQ(pid_rusage(pid, 6, &first), 0) << std::strerror(errno);
    ASSERT_EQ(pid_rusage(pid, 6, &second), 0);
    EXPECT_EQ(std::memcmp(first.b, second.b, 464), 0) << "a zombie answers its exit-time snapshot";
    const uint64_t now = to_ticks(ns_of(CLOCK_BOOTTIME));
    EXPECT_GT(first.at(kExit), 0u) << "ri_proc_exit_abstime set";
    EXPECT_GE(first.at(kExit), first.at(kStart));
    EXPECT_LE(first.at(kExit), now);
    EXPECT_EQ(first.at(kPhysFootprint), 0u);
    EXPECT_GE(first.at(kCycles), 3 * child.reported_ns()) << "the child's whole CPU time";
    EXPECT_LT(first.at(kCycles), 3 * (child.reported_ns() + 1000000000ull));
    EXPECT_EQ(first.at(kInstructions), 2 * first.at(kCycles));
    EXPECT_EQ(first.at(kCyclesP), p_part(first.at(kCycles), 0.75));
    // /proc/<pid>/stat's user/system split, 1/CLK_TCK resolution: within two ticks of the CPU time.
    const uint64_t split_ns = (first.at(kUserTime) + first.at(kSystemTime)) * 125 / 3;
    EXPECT_GE(split_ns + 25000000ull, child.reported_ns());
    // PROC_PIDTHREADCOUNTS does not find zombies.
    Bytes buf;
    errno = 0;
    EXPECT_EQ(proc_pidinfo(pid, kThreadCounts, 0, buf.b, sizeof buf.b), 0);
    EXPECT_EQ(errno, ESRCH);
    child.reap();
    errno = 0;
    EXPECT_EQ(pid_rusage(pid, 6, &buf), -1) << "reaped";
    EXPECT_EQ(errno, ESRCH);
}

TEST_F(Rcsim, ZombieUnderTheIntelTimebase) {
    knob("RCSIM_TIMEBASE", "1/1");
    Child child(5, true);
    Bytes ri;
    ASSERT_EQ(pid_rusage(child.pid(), 4, &ri), 0);
    EXPECT_GT(ri.at(kExit), 0u);
    EXPECT_LE(ri.at(kExit), ns_of(CLOCK_BOOTTIME)) << "ticks are ns with 1/1";
    EXPECT_GE(ri.at(kExit), ns_of(CLOCK_BOOTTIME) - 10000000000ull);
    EXPECT_TRUE(ri.untouched_from(296));
}

TEST_F(Rcsim, LiveChildProcess) {
    Child child(15, false);
    const pid_t pid = child.pid();
    Bytes ri;
    ASSERT_EQ(pid_rusage(pid, 6, &ri), 0);
    EXPECT_EQ(ri.at(kExit), 0u);
    EXPECT_GT(ri.at(kPhysFootprint), 0u);
    EXPECT_GE(ri.at(kCycles), 3 * child.reported_ns());

    // arg 0 and the caller's own id mean the calling thread, even for another pid.
    for (uint64_t arg : {uint64_t{0}, my_tid()}) {
        Bytes buf;
        const uint64_t before = thread_ns();
        ASSERT_EQ(proc_pidinfo(pid, kThreadCounts, arg, buf.b, sizeof buf.b), 88);
        const uint64_t after = thread_ns();
        const uint64_t cycles = buf.at(16) + buf.at(56);
        EXPECT_GE(cycles, 3 * before) << arg;
        EXPECT_LE(cycles, 3 * after) << arg;
    }
    // The child's own (main) thread, whose id is its pid on Linux.
    Bytes buf;
    ASSERT_EQ(proc_pidinfo(pid, kThreadCounts, static_cast<uint64_t>(pid), buf.b, sizeof buf.b), 88);
    EXPECT_GE(buf.at(16) + buf.at(56), 3 * child.reported_ns());
    // A thread of another task is not found.
    errno = 0;
    EXPECT_EQ(proc_pidinfo(getpid(), kThreadCounts, static_cast<uint64_t>(pid), buf.b, sizeof buf.b), 0);
    EXPECT_EQ(errno, ESRCH);
}

// ---------------------------------------------------------------- permission (CHECK_SAME_USER)

TEST_F(Rcsim, OtherOwnersNeedRoot) {
    Child child(1, false);
    Bytes buf;
    rcsim_set_euid(4242);  // not root; this process now belongs to 4242, the child does not
    for (pid_t pid : {child.pid(), pid_t{1}}) {
        errno = 0;
        EXPECT_EQ(pid_rusage(pid, 6, &buf), -1) << pid;
        EXPECT_EQ(errno, EPERM) << pid;
        errno = 0;
        EXPECT_EQ(proc_pidinfo(pid, kThreadCounts, 0, buf.b, sizeof buf.b), 0) << pid;
        EXPECT_EQ(errno, EPERM) << pid;
    }
    EXPECT_TRUE(buf.untouched_from(0));
    EXPECT_EQ(pid_rusage(getpid(), 6, &buf), 0) << "the caller's own process";
    EXPECT_EQ(proc_pidinfo(getpid(), kThreadCounts, 0, buf.b, sizeof buf.b), 88);
    EXPECT_EQ(thread_selfcounts(2, buf.b, sizeof buf.b), 0) << "thread_selfcounts has no permission check";

    rcsim_set_euid(0);  // root passes
    EXPECT_EQ(pid_rusage(child.pid(), 6, &buf), 0);
    EXPECT_EQ(proc_pidinfo(child.pid(), kThreadCounts, 0, buf.b, sizeof buf.b), 88);

    knob("RCSIM_EUID", "4242");  // the same through the environment
    errno = 0;
    EXPECT_EQ(pid_rusage(child.pid(), 6, &buf), -1);
    EXPECT_EQ(errno, EPERM);
    unsetenv("RCSIM_EUID");
    rcsim_reset();
    EXPECT_EQ(pid_rusage(child.pid(), 6, &buf), 0) << "reset drops the pretence";
}

// ---------------------------------------------------------------- error order

TEST_F(Rcsim, PidinfoErrorOrder) {
    Child child(1, false);
    Child zombie(1, true);
    Bytes buf;
    auto err = [&](int pid, int flavor, uint64_t tid, void *b, int size) {
        errno = 0;
        EXPECT_EQ(proc_pidinfo(pid, flavor, tid, b, size), 0);
        return errno;
    };
    const int nopid = 0x7FFFFFFF;
    const uint64_t notid = 0x7FFFFFFF;
    // EINVAL → ENOMEM → ESRCH (pid) → EPERM → ENOTSUP → ESRCH (tid) → EFAULT
    EXPECT_EQ(err(nopid, 99, notid, nullptr, 0), EINVAL);
    EXPECT_EQ(err(nopid, kThreadCounts, notid, nullptr, 7), ENOMEM);
    EXPECT_EQ(err(nopid, kThreadCounts, notid, nullptr, 88), ESRCH);
    EXPECT_EQ(err(zombie.pid(), kThreadCounts, notid, nullptr, 88), ESRCH);
    rcsim_set_euid(4242);
    EXPECT_EQ(err(child.pid(), kThreadCounts, notid, nullptr, 88), EPERM);
    rcsim_set_euid(-1);
    EXPECT_EQ(err(getpid(), kThreadCounts, notid, nullptr, 88), ESRCH);
    EXPECT_EQ(err(getpid(), kThreadCounts, 0, nullptr, 88), EFAULT);
    knob("RCSIM_VM", "1");
    EXPECT_EQ(err(nopid, kThreadCounts, notid, nullptr, 88), ESRCH);
    rcsim_set_euid(4242);
    EXPECT_EQ(err(child.pid(), kThreadCounts, notid, nullptr, 88), EPERM);
    rcsim_set_euid(-1);
    EXPECT_EQ(err(getpid(), kThreadCounts, notid, nullptr, 88), ENOTSUP);
    knob("RCSIM_MACOS", "12.6");
    EXPECT_EQ(err(nopid, kThreadCounts, notid, nullptr, 0), EINVAL);
    EXPECT_TRUE(buf.untouched_from(0));
}

TEST_F(Rcsim, RusageErrorOrder) {
    Child child(1, false);
    Bytes buf;
    auto err = [&](int pid, int flavor, void *b) {
        errno = 0;
        EXPECT_EQ(proc_pid_rusage(pid, flavor, static_cast<void **>(b)), -1);
        return errno;
    };
    // ESRCH → EPERM → EINVAL → EFAULT
    EXPECT_EQ(err(0x7FFFFFFF, 99, nullptr), ESRCH);
    rcsim_set_euid(4242);
    EXPECT_EQ(err(child.pid(), 99, nullptr), EPERM);
    rcsim_set_euid(-1);
    EXPECT_EQ(err(child.pid(), 7, nullptr), EINVAL);
    EXPECT_EQ(err(child.pid(), 6, nullptr), EFAULT);
    knob("RCSIM_MACOS", "12.6");
    EXPECT_EQ(err(child.pid(), 6, buf.b), EINVAL);
    EXPECT_TRUE(buf.untouched_from(0));
}

// ---------------------------------------------------------------- sysctlbyname protocol

TEST_F(Rcsim, SysctlSizeQueryShortBufferAndWrites) {
    size_t len = 0;
    ASSERT_EQ(sysctlbyname("hw.nperflevels", nullptr, &len, nullptr, 0), 0);
    EXPECT_EQ(len, sizeof(int));
    ASSERT_EQ(sysctlbyname("hw.perflevel1.name", nullptr, &len, nullptr, 0), 0);
    EXPECT_EQ(len, sizeof "Efficiency");
    ASSERT_EQ(sysctlbyname("kern.osproductversion", nullptr, nullptr, nullptr, 0), 0);

    // Short buffer: what fits is copied, *oldlenp says how much, ENOMEM.
    char text[16];
    std::memset(text, '#', sizeof text);
    len = 4;
    errno = 0;
    EXPECT_EQ(sysctlbyname("hw.perflevel0.name", text, &len, nullptr, 0), -1);
    EXPECT_EQ(errno, ENOMEM);
    EXPECT_EQ(len, 4u);
    EXPECT_EQ(std::string(text, 5), "Perf#");
    int n = -7;
    len = 2;
    errno = 0;
    EXPECT_EQ(sysctlbyname("hw.nperflevels", &n, &len, nullptr, 0), -1);
    EXPECT_EQ(errno, ENOMEM);
    errno = 0;
    EXPECT_EQ(sysctlbyname("hw.nperflevels", &n, nullptr, nullptr, 0), -1) << "no length: nothing fits";
    EXPECT_EQ(errno, ENOMEM);

    // A larger buffer is fine and *oldlenp shrinks to the value's size.
    char big[64];
    len = sizeof big;
    ASSERT_EQ(sysctlbyname("kern.osrelease", big, &len, nullptr, 0), 0);
    EXPECT_EQ(len, std::strlen(big) + 1);

    // Read-only; unknown names are ENOENT before anything else.
    int one = 1;
    errno = 0;
    EXPECT_EQ(sysctlbyname("hw.nperflevels", nullptr, nullptr, &one, sizeof one), -1);
    EXPECT_EQ(errno, EPERM);
    for (const char *name : {"", "hw", "hw.perflevel", "hw.perflevel0", "hw.perflevel00.name",
                             "hw.perflevel0.name.x", "kern.monotonic", "HW.NPERFLEVELS"}) {
        len = sizeof big;
        errno = 0;
        EXPECT_EQ(sysctlbyname(name, big, &len, &one, sizeof one), -1) << name;
        EXPECT_EQ(errno, ENOENT) << name;
    }
}

// ---------------------------------------------------------------- knobs

TEST_F(Rcsim, MachTimebaseInfoNull) { EXPECT_NE(mach_timebase_info(nullptr), 0); }

TEST_F(Rcsim, ShareSplitIsExactForEveryShare) {
    uint64_t levels[2][2];
    for (const char *share : {"0", "0.001", "0.5", "0.75", "0.999", "1"}) {
        knob("RCSIM_P_SHARE", share);
        spin_ms(1);
        ASSERT_EQ(thread_selfcounts(2, levels, sizeof levels), 0);
        const double s = std::atof(share);
        for (int k = 0; k < 2; ++k)
            EXPECT_EQ(levels[0][k], p_part(levels[0][k] + levels[1][k], s)) << share << " word " << k;
        if (s == 0) EXPECT_EQ(levels[0][1], 0u);
        if (s == 1) EXPECT_EQ(levels[1][1], 0u);
    }
}

TEST_F(Rcsim, VmForcesOneStandardLevel) {
    knob("RCSIM_PERF_LEVELS", "2");
    knob("RCSIM_VM", "1");
    int n = 0;
    ASSERT_EQ(sysctl_int("hw.nperflevels", &n), 0);
    EXPECT_EQ(n, 1);
    std::string s;
    ASSERT_EQ(sysctl_string("hw.perflevel0.name", &s), 0);
    EXPECT_EQ(s, "Standard");
    spin_ms(2);
    Bytes ri;
    ASSERT_EQ(pid_rusage(getpid(), 6, &ri), 0);
    // Linux splits a young process's CPU time by the ticks it has seen, which may all have
    // been in the kernel (user 0): the sum is what must be live.
    EXPECT_GT(ri.at(kUserTime) + ri.at(kSystemTime), 0u) << "times stay live in a VM";
    EXPECT_EQ(ri.at(kCycles), 0u);
}

TEST_F(Rcsim, InvalidKnobsAbortWithTheReason) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const std::pair<const char *, const char *> bad[] = {
        {"RCSIM_MACOS", "15"},        {"RCSIM_MACOS", "10.12"},   {"RCSIM_MACOS", "15.5-beta"},
        {"RCSIM_MACOS", "9.9"},       {"RCSIM_PERF_LEVELS", "3"}, {"RCSIM_PERF_LEVELS", "0"},
        {"RCSIM_P_SHARE", "1.5"},     {"RCSIM_P_SHARE", "-0.1"},  {"RCSIM_P_SHARE", "half"},
        {"RCSIM_VM", "yes"},          {"RCSIM_TIMEBASE", "125"},  {"RCSIM_TIMEBASE", "0/1"},
        {"RCSIM_TIMEBASE", "1/4294967296"}, {"RCSIM_EUID", "-5"},
    };
    for (const auto &b : bad) {
        const std::string expected = std::string(b.first) + "=\"" + b.second + "\" is invalid";
        EXPECT_DEATH(knob(b.first, b.second), expected) << b.first << "=" << b.second;
    }
}

TEST_F(Rcsim, AcceptedKnobSpellings) {
    for (const char *v : {"10.13", "11.0", "12.6.1", "14.7.2", "26.0"}) {
        knob("RCSIM_MACOS", v);
        std::string s;
        ASSERT_EQ(sysctl_string("kern.osproductversion", &s), 0);
        EXPECT_EQ(s, v);
    }
}

// ---------------------------------------------------------------- the library without the stub

TEST(RcsimNoSelfcounts, LacksOnlyThreadSelfcounts) {
    void *lib = dlopen(RCSIM_TEST_NOSELFCOUNTS_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    EXPECT_EQ(dlsym(lib, "thread_selfcounts"), nullptr);
    using pidinfo_fn = int (*)(int, int, uint64_t, void *, int);
    auto pidinfo = reinterpret_cast<pidinfo_fn>(dlsym(lib, "proc_pidinfo"));
    ASSERT_NE(pidinfo, nullptr);
    Bytes buf;
    EXPECT_EQ(pidinfo(getpid(), kThreadCounts, 0, buf.b, sizeof buf.b), 88);
    for (const char *name : {"proc_pid_rusage", "mach_timebase_info", "sysctlbyname", "rcsim_reset"})
        EXPECT_NE(dlsym(lib, name), nullptr) << name;
    dlclose(lib);
}

}  // namespace
