// kpc_bench: what kp_thread_sample costs on top of the raw read() of a perf_event group.
//
// For 1, 3 and 6 software events it opens the events twice in this thread: once through
// libkpc (kp_thread_new) and once directly with perf_event_open, with the attributes libkpc
// uses (one group, PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING). Rounds
// alternate which of the two goes first, so drift (frequency, other load) hits both alike.
// It prints the median ns per read and the ratio kpc/raw; it asserts nothing about time.
// It also counts heap allocations during the kp_thread_sample loops (target: 0).
//
// Exit status: 0 done; 1 a call failed; 77 software perf events cannot be opened here.
#include <kpc/kpc.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "alloc_counter.hpp"

namespace {

struct SoftwareEvent {
    const char *name;  // libkpc generic name
    uint64_t config;   // PERF_TYPE_SOFTWARE config
};
const SoftwareEvent kEvents[] = {
    {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
    {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
};
constexpr size_t kMaxEvents = sizeof kEvents / sizeof kEvents[0];

// The raw group: what libkpc's perf_event backend opens for the same events.
class RawGroup {
public:
    bool open(size_t n) {
        n_ = n;
        for (size_t i = 0; i < n; ++i) {
            perf_event_attr a;
            std::memset(&a, 0, sizeof a);
            a.size = sizeof a;
            a.type = PERF_TYPE_SOFTWARE;
            a.config = kEvents[i].config;
            a.exclude_hv = 1;
            a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                            PERF_FORMAT_TOTAL_TIME_RUNNING;
            a.disabled = i == 0;
            int group = i == 0 ? -1 : fds_[0];
            int fd = sys_open(&a, group);
            if (fd < 0 && (errno == EACCES || errno == EPERM)) {
                a.exclude_kernel = 1;  // as libkpc does under perf_event_paranoid >= 2
                fd = sys_open(&a, group);
            }
            if (fd < 0) {
                error_ = std::string("perf_event_open(") + kEvents[i].name + "): " + std::strerror(errno);
                return false;
            }
            fds_.push_back(fd);
        }
        if (ioctl(fds_[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
            error_ = std::string("PERF_EVENT_IOC_ENABLE: ") + std::strerror(errno);
            return false;
        }
        return true;
    }
    ~RawGroup() {
        for (int fd : fds_) close(fd);
    }
    int leader() const { return fds_[0]; }
    size_t bytes() const { return (3 + n_) * sizeof(uint64_t); }
    const std::string &error() const { return error_; }

private:
    static int sys_open(perf_event_attr *a, int group) {
        return static_cast<int>(syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC));
    }
    std::vector<int> fds_;
    size_t n_ = 0;
    std::string error_;
};

using Clock = std::chrono::steady_clock;

double ns_per(Clock::time_point t0, Clock::time_point t1, int reads) {
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / reads;
}

double time_raw(const RawGroup &g, int reads, int *failures) {
    uint64_t buf[3 + kMaxEvents];
    const ssize_t want = static_cast<ssize_t>(g.bytes());
    const auto t0 = Clock::now();
    for (int i = 0; i < reads; ++i)
        if (read(g.leader(), buf, static_cast<size_t>(want)) != want) ++*failures;
    return ns_per(t0, Clock::now(), reads);
}

double time_kpc(kp_thread_t *t, size_t n, int reads, int *failures) {
    uint64_t values[kMaxEvents];
    const auto t0 = Clock::now();
    for (int i = 0; i < reads; ++i)
        if (kp_thread_sample(t, values, n) != KP_OK) ++*failures;
    return ns_per(t0, Clock::now(), reads);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

int usage(const char *argv0) {
    std::fprintf(stderr, "usage: %s [--rounds N] [--reads N]\n"
                         "  --rounds N  interleaved rounds per event count (default 31)\n"
                         "  --reads N   reads per round and method (default 10000)\n", argv0);
    return 2;
}

}  // namespace

int main(int argc, char **argv) {
    int rounds = 31, reads = 10000;
    for (int i = 1; i < argc; ++i) {
        const bool has_value = i + 1 < argc;
        if (std::strcmp(argv[i], "--rounds") == 0 && has_value) rounds = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--reads") == 0 && has_value) reads = std::atoi(argv[++i]);
        else return usage(argv[0]);
    }
    if (rounds < 1 || reads < 1) return usage(argv[0]);

    kp_sampler_options_t opts;
    kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
    opts.backend = KP_BACKEND_PERF_EVENT;
    kp_sampler_t *sampler = nullptr;
    if (kp_sampler_new(&sampler, &opts) != KP_OK) {
        std::fprintf(stderr, "kpc_bench: skipped, perf_event backend unavailable: %s\n", kp_error_last_message());
        return 77;
    }

    utsname u;
    uname(&u);
    std::printf("kpc_bench: kp_thread_sample vs raw read() of the same perf_event group\n");
    std::printf("machine: %s, %ld online CPUs, %s %s %s; libkpc %s\n", cpu_model().c_str(),
                sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.release, u.machine, kp_version_string());
    std::printf("method: %d interleaved rounds x %d reads; ns/read = median over rounds\n\n", rounds, reads);
    std::printf("%-7s %13s %19s %8s %16s %12s\n", "events", "raw read()", "kp_thread_sample", "ratio",
                "round ratios", "allocations");

    int failures = 0;
    for (size_t n : {size_t{1}, size_t{3}, size_t{6}}) {
        const char *names[kMaxEvents];
        for (size_t i = 0; i < n; ++i) names[i] = kEvents[i].name;
        kp_thread_t *t = nullptr;
        if (kp_thread_new(&t, sampler, names, n) != KP_OK || kp_thread_start(t) != KP_OK) {
            std::fprintf(stderr, "kpc_bench: skipped, %zu software events cannot be counted: %s\n", n,
                         kp_error_last_message());
            kp_thread_free(t);
            kp_sampler_free(sampler);
            return 77;
        }
        RawGroup raw;
        if (!raw.open(n)) {
            std::fprintf(stderr, "kpc_bench: skipped, raw group: %s\n", raw.error().c_str());
            kp_thread_free(t);
            kp_sampler_free(sampler);
            return 77;
        }

        // Warm caches and branch predictors for both paths.
        time_raw(raw, reads / 10 + 1, &failures);
        time_kpc(t, n, reads / 10 + 1, &failures);

        std::vector<double> raw_ns, kpc_ns, ratios;
        uint64_t allocations = 0;
        auto counted_kpc = [&] {
            kpc_alloc::begin();
            const double ns = time_kpc(t, n, reads, &failures);
            allocations += kpc_alloc::end().count;
            return ns;
        };
        for (int r = 0; r < rounds; ++r) {
            double a, b;
            if (r % 2 == 0) {
                b = counted_kpc();
                a = time_raw(raw, reads, &failures);
            } else {
                a = time_raw(raw, reads, &failures);
                b = counted_kpc();
            }
            raw_ns.push_back(a);
            kpc_ns.push_back(b);
            ratios.push_back(b / a);
        }
        // Each round's ratio pairs two back-to-back measurements, so load that changes
        // between rounds cancels; the median of those ratios is the reported ratio.
        std::sort(ratios.begin(), ratios.end());
        char spread[32];
        std::snprintf(spread, sizeof spread, "%.3f-%.3f", ratios[ratios.size() / 4],
                      ratios[ratios.size() * 3 / 4]);
        std::printf("%-7zu %10.1f ns %16.1f ns %8.3f %16s %12llu\n", n, median(raw_ns), median(kpc_ns),
                    median(ratios), spread, static_cast<unsigned long long>(allocations));
        std::fflush(stdout);
        kp_thread_free(t);
    }
    kp_sampler_free(sampler);
    std::printf("\nratio = median over rounds of (kp_thread_sample ns / raw read() ns in the same "
                "round), target <= 1.10;\nround ratios = interquartile range of those ratios; "
                "allocations = heap allocations during all %d x %d kp_thread_sample calls of the row "
                "(target 0)\n", rounds, reads);
    if (failures) {
        std::fprintf(stderr, "kpc_bench: %d reads failed\n", failures);
        return 1;
    }
    return 0;
}
