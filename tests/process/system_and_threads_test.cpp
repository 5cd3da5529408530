// kp_process_attach_ex (options, KP_PROCESS_SYSTEM_WIDE) and the per-thread reads
// (kp_process_thread_count / kp_process_read_thread) on Linux, with real software events.
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/workload.hpp"
#include "process_helpers.hpp"

using namespace process_test;

namespace {

int attach_ex(Process *out, kp_sampler_t *s, const std::vector<const char *> &events, int32_t pid,
              const kp_process_options_t *options = nullptr) {
    kp_process_t *p = nullptr;
    int rc = kp_process_attach_ex(&p, s, events.data(), events.size(), pid, options);
    out->reset(p);
    return rc;
}

int perf_event_paranoid() {
    std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
    int level = 99;
    f >> level;
    return level;
}

double thread_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

void burn_ms(double ms) {
    const double until = thread_cpu_ns() + ms * 1e6;
    volatile unsigned long x = 0;
    while (thread_cpu_ns() < until)
        for (int i = 0; i < 10000; ++i) x = x + static_cast<unsigned long>(i);
}

// Runs the workload with `args` to its end, outside libkpc.
void run_uncounted(const std::vector<std::string> &args) {
    std::vector<char *> argv = {const_cast<char *>(workload())};
    std::vector<std::string> copy = args;
    for (std::string &a : copy) argv.push_back(&a[0]);
    argv.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        execv(argv[0], argv.data());
        _exit(127);
    }
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
}

// Options that put the first two events in one group.
kp_process_options_t two_in_one_group() {
    static const int32_t groups[] = {0, 0};
    kp_process_options_t o;
    EXPECT_EQ(kp_process_options_init(&o, KP_PROCESS_OPTIONS_VERSION), KP_OK);
    o.groups = groups;
    return o;
}

// Whether this process may count every CPU (root, CAP_PERFMON, or paranoid <= 0).
bool may_count_system_wide() { return geteuid() == 0 || perf_event_paranoid() <= 0; }

// A counted process's threads: `n` threads that burn `ms` each once released.
class BusyThreads {
public:
    BusyThreads(int n, double ms) {
        for (int i = 0; i < n; ++i)
            threads_.emplace_back([this, ms] {
                tids_[ready_.fetch_add(1)] = static_cast<int>(syscall(SYS_gettid));
                while (!go_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                burn_ms(ms);
            });
        while (ready_.load() < n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ~BusyThreads() { go_and_join(); }
    void go_and_join() {
        go_.store(true);
        for (std::thread &t : threads_) t.join();
        threads_.clear();
    }
    std::set<int> tids() const { return std::set<int>(tids_, tids_ + ready_.load()); }

private:
    std::atomic<bool> go_{false};
    std::atomic<int> ready_{0};
    int tids_[8] = {};
    std::vector<std::thread> threads_;
};

}  // namespace

// ---------------------------------------------------------------- system-wide

TEST(SystemWide, CountsEveryCpuIncludingOtherProcesses) {
    if (!may_count_system_wide()) {
        std::printf("SKIPPED: not root and kernel.perf_event_paranoid is %d (> 0)\n",
                    perf_event_paranoid());
        GTEST_SKIP() << "system-wide counting is not permitted here";
    }
    Sampler s = sampler();
    Process p;
    const std::vector<const char *> events = {"page-faults", "task-clock"};
    ASSERT_EQ(attach_ex(&p, s.get(), events, KP_PROCESS_SYSTEM_WIDE), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_pid(p.get()), -1);
    EXPECT_EQ(kp_process_event_scope(p.get(), 0), KP_PROCESS_SCOPE_SYSTEM);
    EXPECT_EQ(kp_process_event_scope(p.get(), 1), KP_PROCESS_SCOPE_SYSTEM);
    EXPECT_EQ(kp_process_thread_count(p.get()), 0u);
    const auto start = std::chrono::steady_clock::now();
    run_uncounted({"pages", "3000"});  // a process libkpc knows nothing of
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    std::vector<uint64_t> v = read(p.get());
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    std::printf("system-wide over %.0f ms on %ld CPUs: page-faults %llu, task-clock %llu ns\n",
                wall_ns / 1e6, cpus, (unsigned long long)v[0], (unsigned long long)v[1]);
    EXPECT_GE(v[0], 3000u);  // the other process's faults are in
    // Every CPU's clock runs whether or not a task does: about CPUs x the wall time.
    EXPECT_GT(static_cast<double>(v[1]), 0.8 * wall_ns * static_cast<double>(cpus));
    EXPECT_LT(static_cast<double>(v[1]), 1.5 * wall_ns * static_cast<double>(cpus) + 50e6);
    int code = 0, sig = 0;
    EXPECT_EQ(kp_process_wait(p.get(), &code, &sig), KP_ESTATE);
    EXPECT_NE(std::strstr(kp_error_last_message(), "system-wide"), nullptr) << kp_error_last_message();
    int32_t tid = 0;
    uint64_t row[2];
    EXPECT_EQ(kp_process_read_thread(p.get(), 0, &tid, row, nullptr, 2), KP_EINVAL);
}

TEST(SystemWide, StopFreezesTheTotals) {
    if (!may_count_system_wide()) GTEST_SKIP() << "system-wide counting is not permitted here";
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(attach_ex(&p, s.get(), {"page-faults"}, KP_PROCESS_SYSTEM_WIDE), KP_OK)
        << kp_error_last_message();
    ASSERT_EQ(kp_process_stop(p.get()), KP_OK);
    std::vector<uint64_t> a = read(p.get());
    ASSERT_TRUE(kpc_test::touch_fresh_pages(1000));
    EXPECT_EQ(read(p.get()), a);
    ASSERT_EQ(kp_process_start(p.get()), KP_OK);
    ASSERT_TRUE(kpc_test::touch_fresh_pages(1000));
    EXPECT_GE(read(p.get())[0] - a[0], 1000u);
}

TEST(SystemWide, GroupsCountTogether) {
    if (!may_count_system_wide()) GTEST_SKIP() << "system-wide counting is not permitted here";
    Sampler s = sampler();
    const kp_process_options_t o = two_in_one_group();
    Process p;
    ASSERT_EQ(attach_ex(&p, s.get(), {"task-clock", "page-faults"}, KP_PROCESS_SYSTEM_WIDE, &o), KP_OK)
        << kp_error_last_message();
    ASSERT_TRUE(kpc_test::touch_fresh_pages(500));
    std::vector<uint64_t> v(2), enabled(2), running(2);
    std::vector<uint8_t> complete(2);
    ASSERT_EQ(kp_process_read_full(p.get(), v.data(), complete.data(), 2, enabled.data(), running.data()),
              KP_OK);
    EXPECT_GT(v[0], 0u);
    EXPECT_GE(v[1], 500u);
    EXPECT_EQ(complete[0], 1);
    EXPECT_EQ(complete[1], 1);
}

// Unprivileged, with perf_event_paranoid > 0: refused, and the message says what to change.
TEST(SystemWide, RefusedWithoutPrivilegeNamingTheSetting) {
    if (perf_event_paranoid() <= 0) GTEST_SKIP() << "perf_event_paranoid <= 0 lets everyone count system-wide";
    int pipefd[2];
    ASSERT_EQ(pipe(pipefd), 0);
    pid_t child = fork();
    if (child == 0) {  // drop root (if any) in a child, then try
        close(pipefd[0]);
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        kp_sampler_options_t so;
        kp_sampler_options_init(&so, KP_SAMPLER_OPTIONS_VERSION);
        so.backend = KP_BACKEND_PERF_EVENT;
        kp_sampler_t *s = nullptr;
        if (kp_sampler_new(&s, &so) != KP_OK) _exit(4);
        const char *names[] = {"task-clock"};
        kp_process_t *p = nullptr;
        int rc = kp_process_attach_ex(&p, s, names, 1, KP_PROCESS_SYSTEM_WIDE, nullptr);
        const char *msg = kp_error_last_message();
        (void)!write(pipefd[1], msg, std::strlen(msg));
        kp_process_free(p);
        // KP_PROCESS_PARTIAL too: a handle that could count none of its events is an error.
        kp_process_options_t o;
        kp_process_options_init(&o, KP_PROCESS_OPTIONS_VERSION);
        o.flags = KP_PROCESS_PARTIAL;
        p = nullptr;
        int partial_rc = kp_process_attach_ex(&p, s, names, 1, KP_PROCESS_SYSTEM_WIDE, &o);
        kp_process_free(p);
        kp_sampler_free(s);
        _exit(rc != KP_EPERM ? 5 : partial_rc != KP_EPERM ? 6 : 0);
    }
    close(pipefd[1]);
    std::string msg;
    char buf[512];
    for (ssize_t n; (n = ::read(pipefd[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<size_t>(n));
    close(pipefd[0]);
    int st = 0;
    ASSERT_EQ(waitpid(child, &st, 0), child);
    ASSERT_TRUE(WIFEXITED(st));
    ASSERT_NE(WEXITSTATUS(st), 3) << "could not drop to user 65534";
    EXPECT_NE(WEXITSTATUS(st), 6) << "KP_PROCESS_PARTIAL with nothing counted must fail too";
    EXPECT_EQ(WEXITSTATUS(st), 0) << "expected KP_EPERM; message: " << msg;
    EXPECT_NE(msg.find("perf_event_paranoid"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CAP_PERFMON"), std::string::npos) << msg;
}

// ---------------------------------------------------------------- per-thread reads

TEST(PerThread, RowsAreTheThreadsAndAddUpToTheTotal) {
    BusyThreads busy(2, 30);
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(attach_ex(&p, s.get(), {"task-clock", "page-faults"}, 0), KP_OK) << kp_error_last_message();
    busy.go_and_join();
    ASSERT_EQ(kp_process_stop(p.get()), KP_OK);  // frozen: rows and total read the same state
    const size_t n = kp_process_thread_count(p.get());
    ASSERT_GE(n, 3u);  // this thread and the two busy ones, at least (gtest may have more)
    std::vector<uint64_t> total = read(p.get());
    uint64_t sum_clock = 0, sum_faults = 0;
    std::set<int> tids;
    for (size_t i = 0; i < n; ++i) {
        int32_t tid = 0;
        uint64_t row[2] = {};
        uint8_t complete[2] = {};
        ASSERT_EQ(kp_process_read_thread(p.get(), i, &tid, row, complete, 2), KP_OK) << kp_error_last_message();
        EXPECT_GT(tid, 0);
        tids.insert(tid);
        sum_clock += row[0];
        sum_faults += row[1];
        if (busy.tids().count(tid)) EXPECT_GT(row[0], 20u * 1000 * 1000) << "thread " << tid;
    }
    EXPECT_EQ(tids.size(), n) << "tids are distinct";
    for (int tid : busy.tids()) EXPECT_EQ(tids.count(tid), 1u) << "busy thread " << tid << " has a row";
    EXPECT_EQ(sum_clock, total[0]);
    EXPECT_EQ(sum_faults, total[1]);
}

TEST(PerThread, AThreadsRowIncludesTheThreadsItCreates) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(attach_ex(&p, s.get(), {"task-clock"}, 0), KP_OK) << kp_error_last_message();
    const int me = static_cast<int>(syscall(SYS_gettid));
    size_t mine = kp_process_thread_count(p.get());
    for (size_t i = 0; i < kp_process_thread_count(p.get()); ++i) {
        int32_t tid = 0;
        uint64_t v = 0;
        ASSERT_EQ(kp_process_read_thread(p.get(), i, &tid, &v, nullptr, 1), KP_OK);
        if (tid == me) mine = i;
    }
    ASSERT_LT(mine, kp_process_thread_count(p.get())) << "this thread has a row";
    double child_ns = 0;
    std::thread([&child_ns] {  // created after the attach, by this thread
        burn_ms(40);
        child_ns = thread_cpu_ns();
    }).join();
    ASSERT_EQ(kp_process_stop(p.get()), KP_OK);
    uint64_t v = 0;
    ASSERT_EQ(kp_process_read_thread(p.get(), mine, nullptr, &v, nullptr, 1), KP_OK);
    EXPECT_GE(static_cast<double>(v), 0.9 * child_ns);
}

TEST(PerThread, SpawnedCommandHasOneRowCoveringAll) {
    Sampler s = sampler();
    Process p;
    const std::vector<const char *> events = {"task-clock"};
    std::vector<const char *> argv = {workload(), "threads", "3", "20", nullptr};
    kp_process_t *raw = nullptr;
    ASSERT_EQ(kp_process_spawn(&raw, s.get(), events.data(), 1, argv.data()), KP_OK) << kp_error_last_message();
    p.reset(raw);
    ASSERT_EQ(kp_process_wait(p.get(), nullptr, nullptr), KP_OK);
    ASSERT_EQ(kp_process_thread_count(p.get()), 1u);
    int32_t tid = 0;
    uint64_t row = 0;
    ASSERT_EQ(kp_process_read_thread(p.get(), 0, &tid, &row, nullptr, 1), KP_OK);
    EXPECT_EQ(tid, kp_process_pid(p.get()));
    EXPECT_EQ(row, read(p.get())[0]);
    EXPECT_GT(row, 3u * 15 * 1000 * 1000);  // the three threads' 20 ms each, inherited
}

TEST(PerThread, BadArgumentsAreRefused) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(attach_ex(&p, s.get(), {"task-clock", "page-faults"}, 0), KP_OK) << kp_error_last_message();
    const size_t n = kp_process_thread_count(p.get());
    uint64_t v[2];
    EXPECT_EQ(kp_process_read_thread(p.get(), n, nullptr, v, nullptr, 2), KP_EINVAL);
    EXPECT_NE(std::strstr(kp_error_last_message(), "kp_process_thread_count"), nullptr) << kp_error_last_message();
    EXPECT_EQ(kp_process_read_thread(p.get(), 0, nullptr, nullptr, nullptr, 2), KP_EINVAL);
    EXPECT_EQ(kp_process_read_thread(p.get(), 0, nullptr, v, nullptr, 1), KP_EBUFSIZE);
    EXPECT_EQ(kp_process_read_thread(nullptr, 0, nullptr, v, nullptr, 2), KP_EINVAL);
    EXPECT_EQ(kp_process_thread_count(nullptr), 0u);
}

// ---------------------------------------------------------------- attach options

TEST(AttachEx, PartialReportsTheEventThatCannotCount) {
    Sampler s = sampler();
    kp_process_options_t o;
    ASSERT_EQ(kp_process_options_init(&o, KP_PROCESS_OPTIONS_VERSION), KP_OK);
    const std::vector<const char *> events = {"task-clock", "cycles"};
    const kp_event_t *cycles = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&cycles, s.get(), "cycles"), KP_OK);
    if (kp_event_is_available(cycles)) GTEST_SKIP() << "this machine counts cycles: no unavailable event to test with";
    Process p;
    EXPECT_EQ(attach_ex(&p, s.get(), events, 0), KP_EUNAVAILABLE);  // without the flag
    o.flags = KP_PROCESS_PARTIAL;
    ASSERT_EQ(attach_ex(&p, s.get(), events, 0, &o), KP_OK) << kp_error_last_message();
    burn_ms(5);
    std::vector<uint64_t> v(2);
    std::vector<uint8_t> complete(2);
    ASSERT_EQ(kp_process_read_full(p.get(), v.data(), complete.data(), 2, nullptr, nullptr), KP_OK);
    EXPECT_GT(v[0], 0u);
    EXPECT_EQ(v[1], 0u);
    EXPECT_EQ(complete[1], 0);
    int status = 0;
    const char *reason = nullptr;
    ASSERT_EQ(kp_process_event_status(p.get(), 1, &status, &reason), KP_OK);
    EXPECT_EQ(status, KP_EUNAVAILABLE);
    EXPECT_GT(std::strlen(reason), 0u);
    ASSERT_EQ(kp_process_event_status(p.get(), 0, &status, &reason), KP_OK);
    EXPECT_EQ(status, KP_OK);
    // Nothing countable at all is still an error, naming the event's reason.
    Process none;
    EXPECT_EQ(attach_ex(&none, s.get(), {"cycles"}, 0, &o), KP_EUNAVAILABLE);
    EXPECT_NE(std::strstr(kp_error_last_message(), "cycles"), nullptr) << kp_error_last_message();
}

TEST(AttachEx, GroupsOnAnAttachedProcess) {
    Sampler s = sampler();
    const kp_process_options_t o = two_in_one_group();
    Process p;
    ASSERT_EQ(attach_ex(&p, s.get(), {"task-clock", "page-faults"}, 0, &o), KP_OK) << kp_error_last_message();
    ASSERT_TRUE(kpc_test::touch_fresh_pages(400));
    std::vector<uint64_t> v = read(p.get());
    EXPECT_GT(v[0], 0u);
    EXPECT_GE(v[1], 400u);  // the member counts, not only its leader
    // Paused and resumed: the kernel would leave a member switched on after its leader
    // unscheduled, so the member must still count after the start.
    ASSERT_EQ(kp_process_stop(p.get()), KP_OK);
    ASSERT_EQ(kp_process_start(p.get()), KP_OK);
    ASSERT_TRUE(kpc_test::touch_fresh_pages(400));
    std::vector<uint64_t> w = read(p.get());
    EXPECT_GE(w[1] - v[1], 400u);
}

TEST(SpawnEx, AGroupStillCountsWholeAfterStopAndStart) {
    Sampler s = sampler();
    const kp_process_options_t o = two_in_one_group();
    const char *events[] = {"task-clock", "context-switches"};
    // Sleeps until killed, in one thread (no fork: a new process's copy of the group starts
    // scheduled, which would hide a member left off): every wake-up is a context switch,
    // counted by the member. AttachEx.GroupsOnAnAttachedProcess is the case the kernel
    // shows the fault on (a member switched on after its leader stays unscheduled).
    const char *argv[] = {"python3", "-c", "import time\nwhile True: time.sleep(0.01)", nullptr};
    kp_process_t *raw = nullptr;
    ASSERT_EQ(kp_process_spawn_ex(&raw, s.get(), events, 2, argv, &o), KP_OK) << kp_error_last_message();
    Process p(raw);
    ASSERT_EQ(kp_process_stop(p.get()), KP_OK);
    ASSERT_EQ(kp_process_start(p.get()), KP_OK);
    std::vector<uint64_t> a = read(p.get());
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    std::vector<uint64_t> b = read(p.get());
    EXPECT_GT(b[0], a[0]);
    EXPECT_GE(b[1] - a[1], 5u) << "the group's member stopped counting after the restart";
}

TEST(AttachEx, BadArgumentsAreRefused) {
    Sampler s = sampler();
    Process p;
    EXPECT_EQ(attach_ex(&p, s.get(), {"task-clock"}, -2), KP_EINVAL);
    EXPECT_NE(std::strstr(kp_error_last_message(), "KP_PROCESS_SYSTEM_WIDE"), nullptr) << kp_error_last_message();
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(attach(&p, s.get(), {"task-clock"}, -1), KP_EINVAL);  // kp_process_attach: processes only
    EXPECT_NE(std::strstr(kp_error_last_message(), "kp_process_attach_ex"), nullptr) << kp_error_last_message();
    kp_process_options_t o;
    ASSERT_EQ(kp_process_options_init(&o, KP_PROCESS_OPTIONS_VERSION), KP_OK);
    o.version = 99;
    EXPECT_EQ(attach_ex(&p, s.get(), {"task-clock"}, 0, &o), KP_EINVAL);
    o.version = KP_PROCESS_OPTIONS_VERSION;
    o.flags = 0x80;
    EXPECT_EQ(attach_ex(&p, s.get(), {"task-clock"}, 0, &o), KP_EINVAL);
    o.flags = 0;
    const int32_t bad[] = {-2};
    o.groups = bad;
    EXPECT_EQ(attach_ex(&p, s.get(), {"task-clock"}, 0, &o), KP_EINVAL);
}
