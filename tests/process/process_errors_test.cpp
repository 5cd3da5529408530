// kp_process_t's refusals, each with the code and a message that names the cause, and its
// resources: no descriptor or process outlives a handle or a failed constructor.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "common/pmu_probe.h"
#include "process_helpers.hpp"

using namespace process_test;

namespace {

const std::vector<const char *> kEvents = {"task-clock"};

// `needle` appears in the thread's last error message.
::testing::AssertionResult message_has(const char *needle) {
    const char *m = kp_error_last_message();
    if (std::strstr(m, needle)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "message \"" << m << "\" lacks \"" << needle << "\"";
}

// A pid no process has: a child's, once reaped (pids are not reused at once).
pid_t dead_pid() {
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    waitpid(pid, nullptr, 0);
    return pid;
}

int paranoid_level() {
    std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
    int v = 99;
    f >> v;
    return v;
}

}  // namespace

TEST(ProcessErrors, NullArguments) {
    Sampler s = sampler();
    const char *argv[] = {workload(), "exit", "0", nullptr};
    kp_process_t *p = reinterpret_cast<kp_process_t *>(0x1);
    EXPECT_EQ(kp_process_spawn(nullptr, s.get(), kEvents.data(), 1, argv), KP_EINVAL);
    EXPECT_TRUE(message_has("out is NULL"));
    EXPECT_EQ(kp_process_spawn(&p, nullptr, kEvents.data(), 1, argv), KP_EINVAL);
    EXPECT_EQ(p, nullptr);
    EXPECT_TRUE(message_has("sampler is NULL"));
    EXPECT_EQ(kp_process_spawn(&p, s.get(), nullptr, 1, argv), KP_EINVAL);
    EXPECT_EQ(kp_process_spawn(&p, s.get(), kEvents.data(), 0, argv), KP_EINVAL);
    EXPECT_EQ(kp_process_spawn(&p, s.get(), kEvents.data(), 33, argv), KP_EINVAL);
    EXPECT_TRUE(message_has("between 1 and 32"));
    EXPECT_EQ(kp_process_spawn(&p, s.get(), kEvents.data(), 1, nullptr), KP_EINVAL);
    EXPECT_TRUE(message_has("argv is NULL"));
    const char *empty[] = {nullptr};
    EXPECT_EQ(kp_process_spawn(&p, s.get(), kEvents.data(), 1, empty), KP_EINVAL);
    EXPECT_TRUE(message_has("names no program"));
    const char *blank[] = {"", nullptr};
    EXPECT_EQ(kp_process_spawn(&p, s.get(), kEvents.data(), 1, blank), KP_EINVAL);
    EXPECT_EQ(kp_process_attach(nullptr, s.get(), kEvents.data(), 1, 0), KP_EINVAL);
    EXPECT_EQ(kp_process_attach(&p, nullptr, kEvents.data(), 1, 0), KP_EINVAL);
    EXPECT_EQ(kp_process_attach(&p, s.get(), nullptr, 1, 0), KP_EINVAL);
    const char *holes[] = {"task-clock", nullptr};
    EXPECT_EQ(kp_process_attach(&p, s.get(), holes, 2, 0), KP_EINVAL);
    EXPECT_TRUE(message_has("events[1] is NULL"));
    EXPECT_EQ(p, nullptr);

    uint64_t v = 0;
    EXPECT_EQ(kp_process_start(nullptr), KP_EINVAL);
    EXPECT_EQ(kp_process_stop(nullptr), KP_EINVAL);
    EXPECT_EQ(kp_process_read(nullptr, &v, 1), KP_EINVAL);
    EXPECT_EQ(kp_process_read_full(nullptr, &v, nullptr, 1, nullptr, nullptr), KP_EINVAL);
    EXPECT_EQ(kp_process_wait(nullptr, nullptr, nullptr), KP_EINVAL);
    EXPECT_TRUE(message_has("process is NULL"));
    EXPECT_EQ(kp_process_is_counting(nullptr), 0);
    EXPECT_EQ(kp_process_pid(nullptr), -1);
    EXPECT_EQ(kp_process_event_count(nullptr), 0u);
    EXPECT_EQ(kp_process_event_at(nullptr, 0), nullptr);
    EXPECT_EQ(kp_process_event_scope(nullptr, 0), -1);
    kp_process_free(nullptr);
}

TEST(ProcessErrors, EventsAreCheckedAsForThreads) {
    Sampler s = sampler();
    Process p;
    EXPECT_EQ(attach(&p, s.get(), {"task-clock", "no-such-event"}, 0), KP_EUNKNOWN_EVENT);
    EXPECT_TRUE(message_has("no-such-event"));
    EXPECT_EQ(attach(&p, s.get(), {"task-clock", "PERF_COUNT_SW_TASK_CLOCK"}, 0), KP_EINVAL);
    EXPECT_EQ(spawn(&p, s.get(), {"no-such-event"}, {"exit", "0"}), KP_EUNKNOWN_EVENT);
    EXPECT_EQ(p, nullptr);
}

// A reason given per event leaves the event's name out, so events refused for one cause
// read the same (kpc stat prints one note for them); the error that fails a whole set
// names the event.
TEST(ProcessErrors, PerEventReasonsLeaveTheNameOutTheWholeSetErrorNamesIt) {
    const int probe = kpc_test_probe_instructions();
    if (probe == 0) GTEST_SKIP() << "this machine counts hardware events; the test needs them refused";
    if (probe != ENOENT && probe != EOPNOTSUPP && probe != ENODEV)
        GTEST_SKIP() << "hardware events are refused here for another cause than a missing PMU: "
                     << std::strerror(probe);
    Sampler s = sampler();
    // cycles is refused when the sampler is made; r00c0, not in the database, when opened.
    const std::vector<const char *> events = {"cycles", "r00c0", "instructions", "task-clock"};
    kp_process_options_t opts;
    ASSERT_EQ(kp_process_options_init(&opts, KP_PROCESS_OPTIONS_VERSION), KP_OK);
    opts.flags = KP_PROCESS_PARTIAL;
    const char *argv[] = {"true", nullptr};
    kp_process_t *raw = nullptr;
    ASSERT_EQ(kp_process_spawn_ex(&raw, s.get(), events.data(), events.size(), argv, &opts), KP_OK)
        << kp_error_last_message();
    Process p(raw);
    ASSERT_EQ(kp_process_wait(p.get(), nullptr, nullptr), KP_OK);
    uint64_t values[4];
    ASSERT_EQ(kp_process_read(p.get(), values, 4), KP_OK);  // the statuses are a read's
    std::vector<std::string> reasons;
    for (size_t i = 0; i < 3; ++i) {
        int status = KP_OK;
        const char *reason = nullptr;
        ASSERT_EQ(kp_process_event_status(p.get(), i, &status, &reason), KP_OK);
        EXPECT_EQ(status, KP_EUNAVAILABLE) << events[i];
        ASSERT_NE(reason, nullptr);
        EXPECT_EQ(std::strstr(reason, events[i]), nullptr) << reason;
        EXPECT_NE(std::strstr(reason, "not supported on this machine"), nullptr) << reason;
        reasons.push_back(reason);
    }
    EXPECT_EQ(reasons[0], reasons[1]);
    EXPECT_EQ(reasons[0], reasons[2]);
    const kp_event_t *cycles = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&cycles, s.get(), "cycles"), KP_OK);
    EXPECT_EQ(kp_event_unavailable_reason(cycles), reasons[0]);
    // Without KP_PROCESS_PARTIAL the first refusal fails the call, naming its event.
    Process whole;
    EXPECT_EQ(spawn(&whole, s.get(), {"task-clock", "r00c0"}, {"exit", "0"}), KP_EUNAVAILABLE);
    EXPECT_TRUE(message_has("'r00c0'"));
    EXPECT_TRUE(message_has("not supported on this machine"));
    EXPECT_EQ(spawn(&whole, s.get(), {"cycles"}, {"exit", "0"}), KP_EUNAVAILABLE);
    EXPECT_TRUE(message_has("'cycles'"));
}

TEST(ProcessErrors, ACommandThatCannotRun) {
    Sampler s = sampler();
    const char *argv[] = {"kpc-no-such-program-anywhere", "x", nullptr};
    kp_process_t *p = nullptr;
    // Its own code, not KP_EINVAL: a caller tells "cannot run" from a bad argument by code.
    EXPECT_EQ(kp_process_spawn(&p, s.get(), kEvents.data(), 1, argv), KP_EEXEC);
    EXPECT_EQ(p, nullptr);
    EXPECT_TRUE(message_has("kpc-no-such-program-anywhere"));
    EXPECT_TRUE(message_has("PATH"));
    EXPECT_EQ(kp_error_last_os_code(), ENOENT);
    const char *not_executable[] = {"/proc/self/status", nullptr};
    EXPECT_EQ(kp_process_spawn(&p, s.get(), kEvents.data(), 1, not_executable), KP_EEXEC);
    EXPECT_EQ(kp_error_last_os_code(), EACCES);
    EXPECT_TRUE(message_has("executable"));
    EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);  // the failed children were reaped
    EXPECT_EQ(errno, ECHILD);
}

TEST(ProcessErrors, BadPids) {
    Sampler s = sampler();
    Process p;
    EXPECT_EQ(attach(&p, s.get(), kEvents, -1), KP_EINVAL);
    EXPECT_TRUE(message_has("pid is -1"));
    const pid_t gone = dead_pid();
    EXPECT_EQ(attach(&p, s.get(), kEvents, gone), KP_EINVAL);
    EXPECT_EQ(kp_error_last_os_code(), ESRCH);
    EXPECT_TRUE(message_has(("no process has pid " + std::to_string(gone)).c_str()));
    EXPECT_EQ(p, nullptr);
}

// Another user's process: counting it needs the right to trace it. Observed for real in a
// child that gives up root and attaches to pid 1.
TEST(ProcessErrors, AnotherUsersProcessIsRefusedWithTheReason) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create an unprivileged child";
    const bool paranoid_forbids_all = paranoid_level() > 2;
    fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(90);
        kp_sampler_t *s = nullptr;
        if (kp_sampler_new(&s, nullptr) != KP_OK) _exit(91);
        const char *names[] = {"task-clock"};
        kp_process_t *p = nullptr;
        int rc = kp_process_attach(&p, s, names, 1, 1);
        std::fprintf(stderr, "attach to pid 1 as nobody: %s\n", kp_error_last_message());
        const char *why = paranoid_forbids_all ? "perf_event_paranoid" : "another user";
        bool named = std::strstr(kp_error_last_message(), why) != nullptr &&
                     std::strstr(kp_error_last_message(), "root") != nullptr;
        kp_process_free(p);
        kp_sampler_free(s);
        _exit(rc == KP_EPERM && p == nullptr ? (named ? 0 : 2) : 1);
    }
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 0) << "1: not KP_EPERM; 2: the message does not name the cause";
}

TEST(ProcessErrors, WrongStateAndSmallBuffers) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(attach(&p, s.get(), {"task-clock", "page-faults"}, 0), KP_OK)
        << kp_error_last_message();
    uint64_t v[2];
    EXPECT_EQ(kp_process_read(p.get(), v, 1), KP_EBUFSIZE);
    EXPECT_TRUE(message_has("kp_process_event_count"));
    EXPECT_EQ(kp_process_wait(p.get(), nullptr, nullptr), KP_ESTATE);
    ASSERT_EQ(kp_sampler_release(s.get()), KP_OK);
    EXPECT_EQ(kp_process_read(p.get(), v, 2), KP_ESTATE);
    EXPECT_TRUE(message_has("released"));
    EXPECT_EQ(kp_process_start(p.get()), KP_ESTATE);
    Process q;
    EXPECT_EQ(attach(&q, s.get(), {"task-clock"}, 0), KP_ESTATE);
}

// The handle keeps its sampler's session alive: free them in either order.
TEST(ProcessErrors, FreeInAnyOrder) {
    Sampler s = sampler();
    Process p;
    ASSERT_EQ(spawn(&p, s.get(), kEvents, {"spin", "20"}), KP_OK) << kp_error_last_message();
    s.reset();
    ASSERT_EQ(kp_process_wait(p.get(), nullptr, nullptr), KP_OK);
    EXPECT_GT(read(p.get())[0], 0u);
}

TEST(ProcessResources, NoDescriptorOrProcessLeaks) {
    const int before = open_fds();
    {
        Sampler s = sampler();
        const std::vector<const char *> events = {"task-clock", "page-faults", "context-switches"};
        for (int i = 0; i < 3; ++i) {
            Process p;
            ASSERT_EQ(spawn(&p, s.get(), events, {"threads", "3", "5"}), KP_OK);
            ASSERT_EQ(kp_process_wait(p.get(), nullptr, nullptr), KP_OK);
            read(p.get());
            ASSERT_EQ(spawn(&p, s.get(), events, {"sleep"}), KP_OK);  // freed while running
            ASSERT_EQ(attach(&p, s.get(), events, 0), KP_OK);
            read(p.get());
            ASSERT_EQ(kp_process_stop(p.get()), KP_OK);
            p.reset();
            const char *argv[] = {"kpc-no-such-program-anywhere", nullptr};
            kp_process_t *bad = nullptr;
            EXPECT_EQ(kp_process_spawn(&bad, s.get(), events.data(), 3, argv), KP_EEXEC);
            EXPECT_EQ(attach(&p, s.get(), events, dead_pid()), KP_EINVAL);
        }
    }
    EXPECT_EQ(open_fds(), before);
    EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);  // no child left, not even a zombie
    EXPECT_EQ(errno, ECHILD);
}
