// kp_process_t on Linux, through the C API only: real software events counted by the
// running kernel in commands libkpc starts, in processes it attaches to, and in this one.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/workload.hpp"
#include "process_helpers.hpp"

using namespace process_test;

namespace {

const std::vector<const char *> kFaults = {"page-faults", "task-clock"};
constexpr size_t kPageFaults = 0, kTaskClock = 1;

// Counts of the workload run with `args` to its end.
std::vector<uint64_t> count_command(kp_sampler_t *s, const std::vector<std::string> &args) {
    Process p;
    EXPECT_EQ(spawn(&p, s, kFaults, args), KP_OK) << kp_error_last_message();
    if (!p) return {0, 0};
    int code = -2, sig = -2;
    EXPECT_EQ(kp_process_wait(p.get(), &code, &sig), KP_OK) << kp_error_last_message();
    EXPECT_EQ(code, 0);
    EXPECT_EQ(sig, 0);
    return read(p.get());
}

// What the kernel's own accounting says this process and its reaped children have used so
// far (getrusage): the truth the counts are bounded by, independent of perf_event.
struct Usage {
    uint64_t faults = 0;  // minor + major page faults
    uint64_t cpu_ns = 0;  // user + system CPU time
};
Usage usage_now() {
    Usage u;
    for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
        rusage r{};
        getrusage(who, &r);
        u.faults += static_cast<uint64_t>(r.ru_minflt + r.ru_majflt);
        for (const timeval &t : {r.ru_utime, r.ru_stime})
            u.cpu_ns += static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_usec) * 1000u;
    }
    return u;
}

// The workload started by the test itself (not by libkpc), its stdout on a pipe.
class Launched {
public:
    explicit Launched(std::vector<std::string> args) {
        int out[2];
        if (pipe(out) != 0) return;
        std::vector<char *> argv = {const_cast<char *>(workload())};
        for (std::string &a : args) argv.push_back(&a[0]);
        argv.push_back(nullptr);
        pid_ = fork();
        if (pid_ == 0) {
            dup2(out[1], 1);
            execv(argv[0], argv.data());
            _exit(127);
        }
        close(out[1]);
        out_ = out[0];
    }
    ~Launched() {
        if (pid_ > 0 && !reaped_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        if (out_ >= 0) close(out_);
    }
    pid_t pid() const { return pid_; }
    // Reads the workload's stdout up to its "ready" line.
    bool ready() {
        std::string got;
        char c;
        while (read_byte(&c)) {
            got += c;
            if (got.find("ready\n") != std::string::npos) return true;
        }
        return false;
    }
    int wait() {
        int st = 0;
        waitpid(pid_, &st, 0);
        reaped_ = true;
        return st;
    }

private:
    bool read_byte(char *c) { return ::read(out_, c, 1) == 1; }
    pid_t pid_ = -1;
    int out_ = -1;
    bool reaped_ = false;
};

// Threads of this process that wait for go(), then each fault `pages` pages.
class WaitingThreads {
public:
    WaitingThreads(int n, size_t pages) {
        for (int i = 0; i < n; ++i)
            threads_.emplace_back([this, pages] {
                while (!go_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                kpc_test::touch_fresh_pages(pages);
            });
    }
    void go_and_join() {
        go_.store(true);
        for (std::thread &t : threads_) t.join();
        threads_.clear();
    }
    ~WaitingThreads() {
        if (!threads_.empty()) go_and_join();
    }

private:
    std::atomic<bool> go_{false};
    std::vector<std::thread> threads_;
};

bool exited(pid_t pid) {
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
           info.si_pid == pid;
}

}  // namespace

// ---------------------------------------------------------------- a command libkpc starts

TEST(Spawn, CountsTheCommandsPageFaults) {
    Sampler s = sampler();
    const std::vector<uint64_t> idle = count_command(s.get(), {"pages", "0"});
    const std::vector<uint64_t> busy = count_command(s.get(), {"pages", "3000"});
    std::printf("page-faults: pages 0 -> %llu, pages 3000 -> %llu\n",
                (unsigned long long)idle[kPageFaults], (unsigned long long)busy[kPageFaults]);
    ASSERT_GT(busy[kPageFaults], idle[kPageFaults]);
    const uint64_t extra = busy[kPageFaults] - idle[kPageFaults];
    EXPECT_GE(extra, 2950u);
    EXPECT_LE(extra, 3300u);
    EXPECT_GT(idle[kPageFaults], 0u);  // the program's own loading is counted
    EXPECT_GT(busy[kTaskClock], 0u);
}

TEST(Spawn, MetadataSaysWhatWasCounted) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(spawn(&p, s.get(), kFaults, {"spin", "50"}), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_process_wait(p.get(), nullptr, nullptr), KP_OK);
    uint64_t v[2], en[2], run[2];
    uint8_t complete[2] = {9, 9};
    ASSERT_EQ(kp_process_read_full(p.get(), v, complete, 2, en, run), KP_OK);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(complete[i], 1) << i;  // software events are never multiplexed
        EXPECT_GT(en[i], 0u) << i;
        EXPECT_EQ(en[i], run[i]) << i;
        EXPECT_EQ(kp_process_event_scope(p.get(), i), KP_PROCESS_SCOPE_TREE);
    }
    EXPECT_GE(v[kTaskClock], 45u * 1000 * 1000);  // the 50 ms the command burned
    EXPECT_EQ(kp_process_event_scope(p.get(), 2), -1);
    EXPECT_EQ(kp_process_event_count(p.get()), 2u);
    EXPECT_STREQ(kp_event_name(kp_process_event_at(p.get(), 0)), "page-faults");
    EXPECT_EQ(kp_process_event_at(p.get(), 2), nullptr);
    EXPECT_GT(kp_process_pid(p.get()), 0);
}

// The exec tears down the forked copy of this process's address space: with counting
// enabled before the exec, that kernel work would be the child's. 512 MiB of touched small
// pages make it about 15 ms of task-clock (measured: 7 ms for 256 MiB with counting from
// the fork, against 2 ms for an empty command either way).
TEST(Spawn, NothingBeforeTheExecIsCounted) {
    Sampler s = sampler();
    const uint64_t small = count_command(s.get(), {"pages", "0"})[kTaskClock];
    const size_t len = 512u << 20;
    void *big = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(big, MAP_FAILED);
    madvise(big, len, MADV_NOHUGEPAGE);  // one page-table entry per 4 KiB page to tear down
    std::memset(big, 1, len);
    const std::vector<uint64_t> large = count_command(s.get(), {"pages", "0"});
    munmap(big, len);
    std::printf("task-clock of an empty command: %llu ns from a small parent, %llu ns from a "
                "512 MiB one; page-faults %llu\n",
                (unsigned long long)small, (unsigned long long)large[kTaskClock],
                (unsigned long long)large[kPageFaults]);
    EXPECT_LT(large[kTaskClock], small + 5u * 1000 * 1000);
}

// A lost thread takes 100 ms off; one counted twice adds 100 ms. The command's CPU time from
// getrusage (reaped by kp_process_wait) bounds task-clock as tests/README.md says: 90 % below,
// 10 % + 20 ms above, which is about 60 ms short of a second count of one thread.
TEST(Spawn, CountsEveryThread) {
    Sampler s = sampler();
    const Usage before = usage_now();
    const std::vector<uint64_t> v = count_command(s.get(), {"threads", "4", "100"});
    const uint64_t cpu = usage_now().cpu_ns - before.cpu_ns;
    std::printf("task-clock of 4 threads x 100 ms: %llu ns; the command's CPU time: %llu ns\n",
                (unsigned long long)v[kTaskClock], (unsigned long long)cpu);
    EXPECT_GE(cpu, 4u * 100 * 1000 * 1000) << "the workload did not burn its 400 ms";
    EXPECT_GE(v[kTaskClock], 4u * 95 * 1000 * 1000) << "a thread's time is missing";
    EXPECT_GE(v[kTaskClock], cpu / 10 * 9) << "a thread's time is missing";
    EXPECT_LE(v[kTaskClock], cpu + cpu / 10 + 20u * 1000 * 1000) << "time counted twice";
}

// The child faults 3000 pages: counted once, the total is the empty command's plus 3000 and
// the child's own start-up (tens of faults, measured 40); counted twice, 3000 more.
TEST(Spawn, CountsChildProcesses) {
    Sampler s = sampler();
    const uint64_t base = count_command(s.get(), {"pages", "0"})[kPageFaults];
    const uint64_t v = count_command(s.get(), {"fork", "3000"})[kPageFaults];
    std::printf("page-faults of a command whose child faults 3000 pages: %llu (empty: %llu)\n",
                (unsigned long long)v, (unsigned long long)base);
    EXPECT_GE(v, base + 2950) << "the child's faults are missing";
    EXPECT_LE(v, base + 3000 + 300) << "the child's faults counted twice";
}

TEST(Spawn, ReadsWhileRunningIncrease) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(spawn(&p, s.get(), kFaults, {"spin", "400"}), KP_OK) << kp_error_last_message();
    std::vector<uint64_t> a = read(p.get());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::vector<uint64_t> b = read(p.get());
    EXPECT_FALSE(exited(kp_process_pid(p.get())));
    EXPECT_GT(b[kTaskClock], a[kTaskClock]);
    ASSERT_EQ(kp_process_wait(p.get(), nullptr, nullptr), KP_OK);
    std::vector<uint64_t> c = read(p.get());
    EXPECT_GE(c[kTaskClock], b[kTaskClock]);
    EXPECT_GE(c[kTaskClock], 380u * 1000 * 1000);
    EXPECT_EQ(read(p.get()), c);  // ended: the totals stay
}

TEST(Spawn, WaitGivesTheExitCodeOrSignal) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(spawn(&p, s.get(), kFaults, {"exit", "7"}), KP_OK) << kp_error_last_message();
    int code = -2, sig = -2;
    ASSERT_EQ(kp_process_wait(p.get(), &code, &sig), KP_OK);
    EXPECT_EQ(code, 7);
    EXPECT_EQ(sig, 0);
    code = sig = -2;
    ASSERT_EQ(kp_process_wait(p.get(), &code, &sig), KP_OK);  // again: the same
    EXPECT_EQ(code, 7);
    EXPECT_EQ(sig, 0);

    ASSERT_EQ(spawn(&p, s.get(), kFaults, {"signal", std::to_string(SIGTERM)}), KP_OK);
    ASSERT_EQ(kp_process_wait(p.get(), &code, &sig), KP_OK);
    EXPECT_EQ(code, -1);
    EXPECT_EQ(sig, SIGTERM);
}

TEST(Spawn, FreeKillsAndReapsARunningCommand) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(spawn(&p, s.get(), kFaults, {"sleep"}), KP_OK) << kp_error_last_message();
    const pid_t pid = kp_process_pid(p.get());
    ASSERT_FALSE(exited(pid));
    p.reset();
    EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1);  // already reaped: no zombie left
    EXPECT_EQ(errno, ECHILD);
}

// Stopping right after the spawn must hold, although the exec enabled the counters.
TEST(Spawn, StopPausesAndStartResumes) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(spawn(&p, s.get(), kFaults, {"spin", "300"}), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_is_counting(p.get()), 1);
    ASSERT_EQ(kp_process_stop(p.get()), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_is_counting(p.get()), 0);
    std::vector<uint64_t> a = read(p.get());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::vector<uint64_t> b = read(p.get());
    EXPECT_EQ(a, b);
    ASSERT_EQ(kp_process_start(p.get()), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_process_wait(p.get(), nullptr, nullptr), KP_OK);
    std::vector<uint64_t> c = read(p.get());
    EXPECT_GT(c[kTaskClock], b[kTaskClock] + 100u * 1000 * 1000);
}

// One thread waits while another reads: kp_process_wait holds no lock.
TEST(Spawn, ReadWhileAnotherThreadWaits) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(spawn(&p, s.get(), kFaults, {"sleep"}), KP_OK) << kp_error_last_message();
    int code = -2, sig = -2, rc = -100;
    std::thread waiter([&] { rc = kp_process_wait(p.get(), &code, &sig); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    uint64_t v[2];
    EXPECT_EQ(kp_process_read(p.get(), v, 2), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_stop(p.get()), KP_OK);
    EXPECT_EQ(kp_process_start(p.get()), KP_OK);
    kill(kp_process_pid(p.get()), SIGKILL);
    waiter.join();
    EXPECT_EQ(rc, KP_OK);
    EXPECT_EQ(sig, SIGKILL);
}

// ----------------------------------------------------------- a process already running

TEST(Attach, CountsARunningProcessFromNowOn) {
    // 4000 pages faulted before the attach must not count; 3 threads x 1000 after it must.
    Launched w({"ready-then", "4000", "3", "1000"});
    ASSERT_GT(w.pid(), 0);
    ASSERT_TRUE(w.ready());
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(attach(&p, s.get(), kFaults, w.pid()), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_pid(p.get()), w.pid());
    EXPECT_EQ(kp_process_event_scope(p.get(), 0), KP_PROCESS_SCOPE_TREE);
    EXPECT_EQ(kill(w.pid(), SIGUSR1), 0);
    int st = w.wait();
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
    std::vector<uint64_t> v = read(p.get());  // after the process ended
    std::printf("attached: page-faults %llu, task-clock %llu ns\n",
                (unsigned long long)v[kPageFaults], (unsigned long long)v[kTaskClock]);
    EXPECT_GE(v[kPageFaults], 3000u);
    EXPECT_LT(v[kPageFaults], 3000u + 1000u);
    int code, sig;
    EXPECT_EQ(kp_process_wait(p.get(), &code, &sig), KP_ESTATE);
    EXPECT_NE(std::strstr(kp_error_last_message(), "attached"), nullptr) << kp_error_last_message();
}

TEST(AttachSelf, CountsThreadsAndChildrenOfThisProcess) {
    WaitingThreads before(2, 1000);  // threads that exist before the attach
    ASSERT_TRUE(kpc_test::touch_fresh_pages(3000));  // not counted
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(attach(&p, s.get(), kFaults, 0), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_pid(p.get()), getpid());
    const Usage from = usage_now();
    before.go_and_join();                                                      // 2 x 1000
    std::thread([] { kpc_test::touch_fresh_pages(1000); }).join();             // 1000, new thread
    pid_t child = fork();
    if (child == 0) _exit(kpc_test::touch_fresh_pages(1000) ? 0 : 1);          // 1000, new process
    int st = 0;
    ASSERT_EQ(waitpid(child, &st, 0), child);
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ASSERT_TRUE(kpc_test::touch_fresh_pages(1000));                            // 1000, this thread
    const uint64_t truth = usage_now().faults - from.faults;
    std::vector<uint64_t> v = read(p.get());
    std::printf("attached to self: page-faults %llu; getrusage: %llu\n",
                (unsigned long long)v[kPageFaults], (unsigned long long)truth);
    // Every 1000 is one thread or the child: one lost or counted twice moves the total by
    // 1000. getrusage sees the same faults plus a sanitizer's shadow memory, if any.
    EXPECT_GE(v[kPageFaults], 5000u) << "a thread's or the child's faults are missing";
    EXPECT_GE(v[kPageFaults] + 300, truth) << "a thread's or the child's faults are missing";
    EXPECT_LE(v[kPageFaults], truth + 300) << "a thread's or the child's faults counted twice";
}

TEST(AttachSelf, StopPausesAndStartResumes) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(attach(&p, s.get(), kFaults, 0), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_process_stop(p.get()), KP_OK);
    ASSERT_EQ(kp_process_stop(p.get()), KP_OK);  // idempotent
    std::vector<uint64_t> a = read(p.get());
    ASSERT_TRUE(kpc_test::touch_fresh_pages(1000));
    std::thread([] { kpc_test::touch_fresh_pages(1000); }).join();
    std::vector<uint64_t> b = read(p.get());
    EXPECT_EQ(a, b);
    ASSERT_EQ(kp_process_start(p.get()), KP_OK);
    ASSERT_EQ(kp_process_start(p.get()), KP_OK);  // idempotent
    ASSERT_TRUE(kpc_test::touch_fresh_pages(1000));
    std::thread([] { kpc_test::touch_fresh_pages(1000); }).join();
    std::vector<uint64_t> c = read(p.get());
    EXPECT_GE(c[kPageFaults] - b[kPageFaults], 2000u);
}

TEST(AttachSelf, ReadsIncrease) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(attach(&p, s.get(), kFaults, 0), KP_OK) << kp_error_last_message();
    std::vector<uint64_t> a = read(p.get());
    ASSERT_TRUE(kpc_test::touch_fresh_pages(500));
    std::vector<uint64_t> b = read(p.get());
    EXPECT_GE(b[kPageFaults] - a[kPageFaults], 500u);
    EXPECT_GT(b[kTaskClock], a[kTaskClock]);
}
