// kp_process_attach on exact counters: a running multi-threaded process whose threads all
// exist at the attach (each a counter of its own), and one that forks and execs after it
// (children inherit). Start-up is subtracted with a run of 0 iterations, as in
// process_spawn_test.cpp; a lost or doubled thread or child moves the total by 2,000,000.
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "exact_loop.hpp"
#include "workload_path.hpp"

namespace {

constexpr uint64_t kIterations = 1000000;
// As in process_spawn_test.cpp: runs vary by up to ~40,000; a thread's loop is 2,000,000.
constexpr int64_t kSlack = 100000;

struct Attached {
    uint64_t instructions = 0;
    size_t threads = 0;
};

// Starts `pmu_workload --gate mode k n`, attaches once it is ready, opens the gate (one
// byte per thread), waits for it and reads.
Attached attached(const char *mode, int k, uint64_t n, int gate_bytes) {
    Attached out;
    signal(SIGPIPE, SIG_IGN);  // a workload that died early fails the test, not the program
    int in[2], ready[2];
    if (pipe(in) != 0 || pipe(ready) != 0) {
        ADD_FAILURE() << "pipe";
        return out;
    }
    const std::string path = kpc_pmu::workload_path();
    const std::string ks = std::to_string(k), ns = std::to_string(n);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(ready[1], 1);
        close(in[1]);
        close(ready[0]);
        execl(path.c_str(), path.c_str(), "--gate", mode, ks.c_str(), ns.c_str(), (char *)nullptr);
        _exit(127);
    }
    close(in[0]);
    close(ready[1]);
    char buf[6];
    EXPECT_EQ(read(ready[0], buf, sizeof buf), 6) << "the workload never said ready";
    kp_sampler_t *s = nullptr;
    EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message();
    const char *names[] = {"instructions"};
    kp_process_t *p = nullptr;
    EXPECT_EQ(kp_process_attach(&p, s, names, 1, pid), KP_OK) << kp_error_last_message();
    for (int i = 0; i < gate_bytes; ++i) EXPECT_EQ(write(in[1], "g", 1), 1);
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << mode << " status " << status;
    if (p != nullptr) {
        uint8_t complete = 0;
        EXPECT_EQ(kp_process_read_full(p, &out.instructions, &complete, 1, nullptr, nullptr), KP_OK);
        EXPECT_EQ(complete, 1);
        out.threads = kp_process_thread_count(p);
    }
    kp_process_free(p);
    kp_sampler_free(s);
    close(in[1]);
    close(ready[0]);
    return out;
}

void expect_loops(const char *mode, int k, int gate_bytes, size_t threads_at_attach) {
    const Attached base = attached(mode, k, 0, gate_bytes);
    const Attached work = attached(mode, k, kIterations, gate_bytes);
    const int64_t b = static_cast<int64_t>(base.instructions), w = static_cast<int64_t>(work.instructions);
    const int64_t want = 2 * static_cast<int64_t>(kIterations) * k;
    std::printf("%s %d: base %lld, with loops %lld, loops %lld (want %lld), threads %zu\n", mode, k,
                (long long)b, (long long)w, (long long)(w - b), (long long)want, work.threads);
    EXPECT_EQ(work.threads, threads_at_attach);
    EXPECT_GT(b, 0);
    EXPECT_NEAR(w - b, want, kSlack) << mode << " " << k;
}

TEST(ProcessAttach, CountsEveryThreadOnce) {
    KPC_PMU_REQUIRE_GUEST();
    expect_loops("threads", 4, 4, 5);  // the main thread and 4 looping threads
}

TEST(ProcessAttach, CountsEveryForkedAndExecedChildOnce) {
    KPC_PMU_REQUIRE_GUEST();
    expect_loops("forkexec", 3, 1, 1);
}

}  // namespace
