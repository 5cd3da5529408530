// kpc stat on the kperf backend when libSystem has proc_pid_rusage (issue 10 §3): the fixed
// counters' events (cycles, instructions) come from the command's own totals, read before
// it is reaped; the others stay system-wide. Against both simulators at once: kperf
// (tests/kperf_sim) and libSystem (tests/recount_sim). One process per test, so each
// simulator reads the variables set here when loaded.
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "capi/handles.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "recount_fixture.hpp"

namespace {

// The simulator's model (tests/recount_sim/README.md): 3 cycles per ns, 2 instructions per cycle.
constexpr double kCyclesPerNs = 3.0;

uint64_t process_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

class KperfOwnTotals : public ::testing::Test {
protected:
    void SetUp() override { recount_test::use_kperf_over_rcsim(); }
    void TearDown() override { kp_sampler_free(s_); }

    // Runs a child that spends `ms` of CPU time, counting `names` in it as kpc stat does:
    // counters opened before it runs, child_exited() between waitid(WNOWAIT) and the reap.
    void run(std::vector<const char *> names, uint64_t ms = 60) {
        ASSERT_EQ(kp_sampler_new(&s_, nullptr), KP_OK) << kp_error_last_message();
        ASSERT_EQ(kp_sampler_backend(s_), KP_BACKEND_KPERF);
        std::vector<const kpc::Event *> events;
        for (const char *n : names) {
            const kp_event_t *e = nullptr;
            ASSERT_EQ(kp_sampler_event_find(&e, s_, n), KP_OK) << kp_error_last_message();
            events.push_back(e);  // kp_event_t is the core's Event
        }
        int go[2];
        ASSERT_EQ(pipe(go), 0);
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            char c;
            close(go[1]);
            if (read(go[0], &c, 1) != 1) _exit(2);
            const uint64_t end = process_cpu_ns() + ms * 1000000u;
            volatile uint64_t x = 0;
            while (process_cpu_ns() < end)
                for (int i = 0; i < 1000; ++i) x = x + static_cast<uint64_t>(i);
            _exit(0);
        }
        close(go[0]);
        try {
            counters_ = s_->session->backend().count_process({kpc::ProcessTarget::Kind::spawned, pid}, events, {});
        } catch (const kpc::Error &e) {
            ADD_FAILURE() << "count_process: " << e.what();
        }
        EXPECT_EQ(write(go[1], "g", 1), 1);
        close(go[1]);
        siginfo_t info{};
        ASSERT_EQ(waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT), 0);
        if (counters_) counters_->child_exited();  // the zombie still answers
        rusage ru{};
        int status = 0;
        ASSERT_EQ(wait4(pid, &status, 0, &ru), pid);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        child_cpu_ns_ = (static_cast<uint64_t>(ru.ru_utime.tv_sec) + static_cast<uint64_t>(ru.ru_stime.tv_sec)) *
                            1000000000u +
                        (static_cast<uint64_t>(ru.ru_utime.tv_usec) + static_cast<uint64_t>(ru.ru_stime.tv_usec)) * 1000u;
        ASSERT_TRUE(counters_);
        counts_ = counters_->read();
        ASSERT_EQ(counts_.size(), names.size());
    }

    // Both sides come from the kernel's tick-granular process times: 20 ms and 10 %.
    void expect_cycles_track_child_cpu(uint64_t cycles) {
        const double cpu = static_cast<double>(child_cpu_ns_);
        EXPECT_NEAR(static_cast<double>(cycles) / kCyclesPerNs, cpu, 20e6 + 0.1 * cpu)
            << cycles << " cycles for " << child_cpu_ns_ << " ns of the child's CPU time";
    }

    kp_sampler_t *s_ = nullptr;
    std::unique_ptr<kpc::ProcessCounters> counters_;
    std::vector<kpc::ProcessCount> counts_;
    uint64_t child_cpu_ns_ = 0;
};

}  // namespace

TEST_F(KperfOwnTotals, FixedEventsFromTheChildsTotalsOthersSystemWide) {
    run({"cycles", "branches", "instructions"});
    EXPECT_EQ(counters_->capabilities().scope, KP_PROCESS_SCOPE_SYSTEM);
    for (const kpc::ProcessCount &c : counts_) EXPECT_TRUE(c.counted) << c.error;
    // Each event's scope is known from creation (kp_process_event_scope reports it).
    EXPECT_EQ(counters_->event_scope(0), KP_PROCESS_SCOPE_PROCESS);
    EXPECT_EQ(counters_->event_scope(1), KP_PROCESS_SCOPE_SYSTEM);
    EXPECT_EQ(counters_->event_scope(2), KP_PROCESS_SCOPE_PROCESS);
    expect_cycles_track_child_cpu(counts_[0].value);
    EXPECT_EQ(counts_[2].value, 2 * counts_[0].value);  // one record: exactly IPC 2
    EXPECT_GT(counts_[1].value, 0u);
}

TEST_F(KperfOwnTotals, OnlyFixedEventsAreAllTheProcesssOwn) {
    run({"instructions", "cycles"});
    EXPECT_EQ(counters_->capabilities().scope, KP_PROCESS_SCOPE_PROCESS);
    EXPECT_EQ(counters_->event_scope(0), KP_PROCESS_SCOPE_PROCESS);
    EXPECT_EQ(counters_->event_scope(1), KP_PROCESS_SCOPE_PROCESS);
    ASSERT_TRUE(counts_[1].counted) << counts_[1].error;
    expect_cycles_track_child_cpu(counts_[1].value);
    EXPECT_EQ(counts_[0].value, 2 * counts_[1].value);
}

// The per-process source needs libSystem: without one (Linux, no variable), today's
// system-wide counts, said as such.
TEST_F(KperfOwnTotals, WithoutLibSystemEverythingIsSystemWide) {
    unsetenv("KPC_LIBSYSTEM_PATH");
    run({"cycles", "instructions"});
    EXPECT_EQ(counters_->capabilities().scope, KP_PROCESS_SCOPE_SYSTEM);
    for (size_t i = 0; i < counts_.size(); ++i) {
        EXPECT_TRUE(counts_[i].counted) << counts_[i].error;
        EXPECT_EQ(counters_->event_scope(i), KP_PROCESS_SCOPE_SYSTEM);
    }
}

// A kernel without running fixed counters keeps no totals (they would read 0): system-wide.
TEST_F(KperfOwnTotals, KernelWithoutCountsFallsBackToSystemWide) {
    setenv("RCSIM_VM", "1", 1);
    rcsim_reset();
    run({"cycles"});
    EXPECT_EQ(counters_->capabilities().scope, KP_PROCESS_SCOPE_SYSTEM);
    ASSERT_TRUE(counts_[0].counted) << counts_[0].error;
    EXPECT_EQ(counters_->event_scope(0), KP_PROCESS_SCOPE_SYSTEM);
    EXPECT_GT(counts_[0].value, 0u);
}

// The same through the public process API: a spawned command's scopes are right from the
// start, not only after kp_process_wait's read.
TEST_F(KperfOwnTotals, ProcessScopesBeforeTheFirstRead) {
    ASSERT_EQ(kp_sampler_new(&s_, nullptr), KP_OK) << kp_error_last_message();
    const char *names[] = {"cycles", "branches"};
    const char *argv[] = {"true", nullptr};
    kp_process_t *p = nullptr;
    ASSERT_EQ(kp_process_spawn(&p, s_, names, 2, argv), KP_OK) << kp_error_last_message();
    EXPECT_EQ(kp_process_event_scope(p, 0), KP_PROCESS_SCOPE_PROCESS);
    EXPECT_EQ(kp_process_event_scope(p, 1), KP_PROCESS_SCOPE_SYSTEM);
    int code = -1, sig = -1;
    EXPECT_EQ(kp_process_wait(p, &code, &sig), KP_OK) << kp_error_last_message();
    EXPECT_EQ(code, 0);
    EXPECT_EQ(kp_process_event_scope(p, 0), KP_PROCESS_SCOPE_PROCESS);
    kp_process_free(p);
}
