// kp_process_t on the recount backend, against the simulated libSystem: live totals of a
// spawned command, attaching to a running process (another, or the caller), stop/start,
// macOS's same-user rule, and an attached process that ends between reads. Busy children
// are forked here (or `sh` loops spawned) and measured with their Linux CPU clock, which
// the simulator turns into cycles (3 per ns) and instructions (2 per cycle).
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "recount_fixture.hpp"

using namespace recount_test;

namespace {

uint64_t clock_ns(clockid_t clock) {
    timespec ts{};
    if (clock_gettime(clock, &ts) != 0) return 0;
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// CPU time of process `pid` (a child, running or a zombie), in ns.
uint64_t process_cpu_ns(pid_t pid) {
    clockid_t clock;
    return clock_getcpuclockid(pid, &clock) == 0 ? clock_ns(clock) : 0;
}

// Polls `done` every 5 ms for up to 20 s (the machine is shared; the work is small).
bool eventually(const std::function<bool()> &done) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done()) {
        if (std::chrono::steady_clock::now() > give_up) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

// A forked child that burns `before_ms` of CPU, says so on a pipe, then burns until it is
// told (one byte) to exit, or killed. Killed and reaped on destruction if still there.
class BusyChild {
public:
    explicit BusyChild(uint64_t before_ms = 0) {
        int ready[2], quit[2];
        if (pipe(ready) != 0 || pipe(quit) != 0) return;
        pid_ = fork();
        if (pid_ == 0) {
            close(ready[0]);
            close(quit[1]);
            spin_ms(before_ms);
            if (write(ready[1], "r", 1) != 1) _exit(2);
            fcntl(quit[0], F_SETFL, fcntl(quit[0], F_GETFL) | O_NONBLOCK);
            char c;
            for (;;) {
                spin_ms(1);
                if (read(quit[0], &c, 1) == 1) _exit(0);
            }
        }
        close(ready[1]);
        close(quit[0]);
        quit_ = quit[1];
        char c;
        ok_ = pid_ > 0 && read(ready[0], &c, 1) == 1;
        close(ready[0]);
    }
    ~BusyChild() {
        if (quit_ >= 0) close(quit_);
        if (pid_ > 0 && !reaped_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    bool ok() const { return ok_; }
    pid_t pid() const { return pid_; }
    uint64_t cpu_ns() const { return process_cpu_ns(pid_); }
    // Ends it; it stays a zombie until reap().
    void finish() {
        EXPECT_EQ(write(quit_, "q", 1), 1);
        siginfo_t info{};
        EXPECT_EQ(waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT), 0);
    }
    void reap() {
        int status = 0;
        EXPECT_EQ(waitpid(pid_, &status, 0), pid_);
        reaped_ = true;
    }

private:
    pid_t pid_ = -1;
    int quit_ = -1;
    bool ok_ = false;
    bool reaped_ = false;
};

class RecountProcess : public Recount {
protected:
    void TearDown() override {
        kp_process_free(p_);
        Recount::TearDown();
    }
    int attach(std::vector<const char *> names, int pid) {
        return kp_process_attach(&p_, sampler_, names.data(), names.size(), pid);
    }
    int spawn(std::vector<const char *> names, std::vector<const char *> argv) {
        argv.push_back(nullptr);
        return kp_process_spawn(&p_, sampler_, names.data(), names.size(), argv.data());
    }
    // kp_process_read_full; fails the test unless KP_OK.
    std::vector<uint64_t> read(std::vector<uint8_t> *complete = nullptr) {
        const size_t n = kp_process_event_count(p_);
        std::vector<uint64_t> v(n);
        std::vector<uint8_t> c(n, 2);
        EXPECT_EQ(kp_process_read_full(p_, v.data(), c.data(), n, nullptr, nullptr), KP_OK)
            << kp_error_last_message();
        if (complete) *complete = c;
        return v;
    }
    kp_process_t *p_ = nullptr;
};

const char *const kBusyLoop[] = {"sh", "-c", "while :; do :; done"};

}  // namespace

// Reads while the command runs are its live totals (before: KP_ESTATE until kp_process_wait).
TEST_F(RecountProcess, SpawnedCommandReadsWhileRunningAndGrows) {
    open();
    ASSERT_EQ(spawn({"cycles", "instructions", "task-clock"}, {kBusyLoop[0], kBusyLoop[1], kBusyLoop[2]}),
              KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_event_scope(p_, 0), KP_PROCESS_SCOPE_PROCESS);
    std::vector<uint64_t> v(3);
    EXPECT_EQ(kp_process_read(p_, v.data(), v.size()), KP_OK) << kp_error_last_message();
    uint64_t first = 0;
    ASSERT_TRUE(eventually([&] { return (first = read()[0]) > 0; })) << "no cycles while running";
    std::vector<uint8_t> complete;
    std::vector<uint64_t> later;
    ASSERT_TRUE(eventually([&] {
        later = read(&complete);
        return later[0] > first + static_cast<uint64_t>(kCyclesPerNs * 20e6);
    })) << "cycles did not grow by 20 ms of work: " << first << " then " << later[0];
    EXPECT_EQ(later[1], kInstructionsPerCycle * later[0]) << "one rusage record: exactly IPC 2";
    EXPECT_GT(later[2], 0u);
    EXPECT_EQ(complete, (std::vector<uint8_t>{1, 1, 1}));
}

// Whole life, as documented: after the command ends, its exit snapshot, stable, matching the
// CPU time the kernel reports for it when reaped.
TEST_F(RecountProcess, SpawnedCommandEndsWithItsExitSnapshot) {
    open();
    rusage before{}, after{};
    getrusage(RUSAGE_CHILDREN, &before);
    ASSERT_EQ(spawn({"cycles"}, {"sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"}), KP_OK)
        << kp_error_last_message();
    int code = -1, sig = -1;
    ASSERT_EQ(kp_process_wait(p_, &code, &sig), KP_OK) << kp_error_last_message();
    EXPECT_EQ(code, 0);
    getrusage(RUSAGE_CHILDREN, &after);
    std::vector<uint8_t> complete;
    const uint64_t at_end = read(&complete)[0];
    spin_ms(20);
    EXPECT_EQ(read()[0], at_end) << "totals after the end do not move";
    EXPECT_EQ(complete[0], 1);
    const double cpu_ns = 1e9 * ((after.ru_utime.tv_sec - before.ru_utime.tv_sec) +
                                 (after.ru_stime.tv_sec - before.ru_stime.tv_sec)) +
                          1e3 * ((after.ru_utime.tv_usec - before.ru_utime.tv_usec) +
                                 (after.ru_stime.tv_usec - before.ru_stime.tv_usec));
    // rusage is tick-granular on Linux: 20 ms and 10 %.
    EXPECT_NEAR(static_cast<double>(at_end) / kCyclesPerNs, cpu_ns, 20e6 + 0.1 * cpu_ns);
}

// A stopped spawned command's totals stay put while it keeps running; start resumes.
TEST_F(RecountProcess, SpawnedCommandPausesAndResumes) {
    open();
    ASSERT_EQ(spawn({"cycles"}, {kBusyLoop[0], kBusyLoop[1], kBusyLoop[2]}), KP_OK)
        << kp_error_last_message();
    ASSERT_TRUE(eventually([&] { return read()[0] > 0; }));
    ASSERT_EQ(kp_process_stop(p_), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_is_counting(p_), 0);
    const uint64_t stopped = read()[0];
    const pid_t pid = kp_process_pid(p_);
    const uint64_t cpu = process_cpu_ns(pid);
    ASSERT_TRUE(eventually([&] { return process_cpu_ns(pid) > cpu + 30000000; }));
    EXPECT_EQ(read()[0], stopped) << "stopped, while the command ran on";
    ASSERT_EQ(kp_process_start(p_), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_is_counting(p_), 1);
    EXPECT_TRUE(eventually([&] { return read()[0] > stopped; }));
}

// Attached: a read is the totals since the attach, not the process's lifetime.
TEST_F(RecountProcess, AttachCountsOnlyFromTheAttach) {
    open();
    BusyChild child(300);  // 300 ms of CPU before the attach
    ASSERT_TRUE(child.ok());
    ASSERT_EQ(attach({"cycles", "instructions", "task-clock"}, child.pid()), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_pid(p_), child.pid());
    EXPECT_EQ(kp_process_event_scope(p_, 0), KP_PROCESS_SCOPE_PROCESS);
    std::vector<uint64_t> v;
    ASSERT_TRUE(eventually([&] {
        v = read();
        return v[0] > static_cast<uint64_t>(kCyclesPerNs * 50e6);
    })) << "the attached process's cycles did not reach 50 ms of work";
    const uint64_t lifetime_ns = child.cpu_ns();  // after the read: an upper bound
    ASSERT_GE(lifetime_ns, 300000000u);
    // What was counted excludes the 300 ms burnt before the attach.
    EXPECT_LE(static_cast<double>(v[0]) / kCyclesPerNs, static_cast<double>(lifetime_ns) - 290e6)
        << v[0] << " cycles of a process with " << lifetime_ns << " ns of CPU time";
    EXPECT_EQ(v[1], kInstructionsPerCycle * v[0]);
    EXPECT_EQ(kp_process_wait(p_, nullptr, nullptr), KP_ESTATE) << "attached: not libkpc's child";
}

// pid 0: the caller itself, counted from the attach, every thread.
TEST_F(RecountProcess, AttachZeroCountsTheCallersOwnWork) {
    open();
    spin_ms(100);  // lifetime work that the attach must not report
    ASSERT_EQ(attach({"cycles"}, 0), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_pid(p_), getpid());
    const uint64_t cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    const uint64_t first = read()[0];
    EXPECT_LT(static_cast<double>(first) / kCyclesPerNs, 50e6) << "the 100 ms before the attach leaked in";
    std::thread other([] { spin_ms(30); });
    spin_ms(30);
    other.join();
    const uint64_t second = read()[0];
    const uint64_t cpu1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    const double counted_ns = static_cast<double>(second - first) / kCyclesPerNs;
    EXPECT_GE(counted_ns, 60e6 * 0.95) << "both threads' 30 ms";
    EXPECT_LE(counted_ns, static_cast<double>(cpu1 - cpu0) * 1.001 + 1000);
}

// Stop freezes the totals while the process burns on; start resumes without the gap.
TEST_F(RecountProcess, AttachedStopFreezesStartResumes) {
    open();
    BusyChild child;
    ASSERT_TRUE(child.ok());
    ASSERT_EQ(attach({"cycles"}, child.pid()), KP_OK) << kp_error_last_message();
    ASSERT_TRUE(eventually([&] { return read()[0] > 0; }));
    ASSERT_EQ(kp_process_stop(p_), KP_OK) << kp_error_last_message();
    const uint64_t cpu_at_stop = child.cpu_ns();
    const uint64_t stopped = read()[0];
    ASSERT_TRUE(eventually([&] { return child.cpu_ns() > cpu_at_stop + 50000000; }));
    EXPECT_EQ(read()[0], stopped);
    const uint64_t cpu_at_start = child.cpu_ns();
    ASSERT_EQ(kp_process_start(p_), KP_OK) << kp_error_last_message();
    uint64_t resumed = 0;
    ASSERT_TRUE(eventually([&] { return (resumed = read()[0]) > stopped; }));
    const uint64_t cpu_now = child.cpu_ns();
    // Growth since the start only: at most the work since then, not the 50 ms paused.
    EXPECT_LE(static_cast<double>(resumed - stopped) / kCyclesPerNs,
              static_cast<double>(cpu_now - cpu_at_start) * 1.001 + 1000);
}

// macOS: another user's process needs root (proc_security_policy, CHECK_SAME_USER).
TEST_F(RecountProcess, AnotherUsersProcessIsEperm) {
    open();
    BusyChild child;
    ASSERT_TRUE(child.ok());
    rcsim_set_euid(static_cast<long long>(geteuid()) + 4242);  // the child keeps its real owner
    ASSERT_EQ(attach({"cycles"}, child.pid()), KP_EPERM);
    EXPECT_EQ(p_, nullptr);
    const std::string msg = kp_error_last_message();
    EXPECT_EQ(kp_error_last_os_code(), EPERM);
    EXPECT_NE(msg.find("root"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(child.pid())), std::string::npos) << msg;
    rcsim_set_euid(0);  // root may
    EXPECT_EQ(attach({"cycles"}, child.pid()), KP_OK) << kp_error_last_message();
    kp_process_free(p_);
    p_ = nullptr;
    rcsim_set_euid(-1);  // and so may its owner
    EXPECT_EQ(attach({"cycles"}, child.pid()), KP_OK) << kp_error_last_message();
}

TEST_F(RecountProcess, NoSuchProcessIsEinvalWithEsrch) {
    open();
    pid_t gone = fork();
    ASSERT_GE(gone, 0);
    if (gone == 0) _exit(0);
    ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
    ASSERT_EQ(attach({"cycles"}, gone), KP_EINVAL);
    EXPECT_EQ(kp_error_last_os_code(), ESRCH);
    const std::string msg = kp_error_last_message();
    EXPECT_NE(msg.find("no process has pid " + std::to_string(gone)), std::string::npos) << msg;
}

// An attached process that ends: a zombie still answers with its exit snapshot (complete);
// once reaped, the last totals read stay, flagged incomplete, without an error.
TEST_F(RecountProcess, AttachedProcessThatEndsKeepsItsLastTotals) {
    open();
    {
        BusyChild child;
        ASSERT_TRUE(child.ok());
        ASSERT_EQ(attach({"cycles"}, child.pid()), KP_OK) << kp_error_last_message();
        std::vector<uint8_t> complete;
        uint64_t live = 0;
        ASSERT_TRUE(eventually([&] { return (live = read(&complete)[0]) > 0; }));
        child.finish();  // a zombie now
        const uint64_t at_exit = read(&complete)[0];
        EXPECT_GE(at_exit, live);
        EXPECT_EQ(complete[0], 1) << "the exit snapshot is the whole count";
        child.reap();
        EXPECT_EQ(read(&complete)[0], at_exit);
        EXPECT_EQ(complete[0], 1) << "nothing was lost: the exit snapshot was read";
    }
    kp_process_free(p_);
    p_ = nullptr;
    BusyChild child;
    ASSERT_TRUE(child.ok());
    ASSERT_EQ(attach({"cycles"}, child.pid()), KP_OK) << kp_error_last_message();
    uint64_t last = 0;
    ASSERT_TRUE(eventually([&] { return (last = read()[0]) > 0; }));
    child.finish();
    child.reap();  // its parent reaped it before we read again: the tail is lost
    std::vector<uint8_t> complete;
    EXPECT_EQ(read(&complete)[0], last) << "the last totals read, not invented ones";
    EXPECT_EQ(complete[0], 0);
    int status = -1;
    const char *reason = nullptr;
    EXPECT_EQ(kp_process_event_status(p_, 0, &status, &reason), KP_OK);
    EXPECT_EQ(status, KP_OK) << reason;
    // Stopping and starting a handle whose process is gone changes nothing.
    EXPECT_EQ(kp_process_stop(p_), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_start(p_), KP_OK) << kp_error_last_message();
    EXPECT_EQ(read(&complete)[0], last);
    EXPECT_EQ(complete[0], 0);
}

#ifdef KPC_TEST_KPERF
// The kperf backend's split set (tests/kperf_sim and this simulator at once): a spawned
// command's cycles come from its own totals, the rest system-wide. Both halves now read
// while it runs and pause together.
TEST(KperfOwnTotalsLive, SplitSetReadsWhileRunningAndPauses) {
    use_kperf_over_rcsim();
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    const char *names[] = {"cycles", "branches"};
    const char *argv[] = {kBusyLoop[0], kBusyLoop[1], kBusyLoop[2], nullptr};
    kp_process_t *p = nullptr;
    ASSERT_EQ(kp_process_spawn(&p, s, names, 2, argv), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_event_scope(p, 0), KP_PROCESS_SCOPE_PROCESS);
    EXPECT_EQ(kp_process_event_scope(p, 1), KP_PROCESS_SCOPE_SYSTEM);
    uint64_t v[2] = {0, 0};
    EXPECT_TRUE(eventually([&] {
        EXPECT_EQ(kp_process_read(p, v, 2), KP_OK) << kp_error_last_message();
        return v[0] > static_cast<uint64_t>(kCyclesPerNs * 20e6);
    })) << "the command's own cycles, read while it runs: " << v[0];
    EXPECT_EQ(kp_process_stop(p), KP_OK) << kp_error_last_message();
    uint64_t stopped[2] = {0, 0}, later[2] = {0, 0};
    EXPECT_EQ(kp_process_read(p, stopped, 2), KP_OK) << kp_error_last_message();
    const pid_t pid = kp_process_pid(p);
    const uint64_t cpu = process_cpu_ns(pid);
    EXPECT_TRUE(eventually([&] { return process_cpu_ns(pid) > cpu + 30000000; }));
    EXPECT_EQ(kp_process_read(p, later, 2), KP_OK) << kp_error_last_message();
    EXPECT_EQ(later[0], stopped[0]) << "own cycles paused";
    EXPECT_EQ(later[1], stopped[1]) << "system-wide branches paused";
    EXPECT_EQ(kp_process_start(p), KP_OK) << kp_error_last_message();
    EXPECT_TRUE(eventually([&] {
        EXPECT_EQ(kp_process_read(p, later, 2), KP_OK) << kp_error_last_message();
        return later[0] > stopped[0];
    }));
    kp_process_free(p);
    kp_sampler_free(s);
}
#endif
