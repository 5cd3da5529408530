// The perf_event_paranoid diagnostics, observed for real: a child process drops root and
// counts under the machine's paranoid level, then under level 3 (set and restored by the
// parent, which must be root). Runs serially: it changes a system-wide sysctl briefly.
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace {

const char *kParanoid = "/proc/sys/kernel/perf_event_paranoid";
const uid_t kNobody = 65534;

int read_paranoid() {
    std::ifstream f(kParanoid);
    int v = -99;
    f >> v;
    return v;
}

bool write_paranoid(int v) {
    std::ofstream f(kParanoid);
    f << v;
    f.flush();
    return static_cast<bool>(f);
}

// Runs `body` in a child that has given up root; returns the child's exit code.
template <typename Body>
int as_unprivileged_child(Body body) {
    fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(90);
        _exit(body());
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

// 0 when a software event counts; 10 + (-status) when kp_thread_new fails; the message
// goes to stderr for the test log.
int count_task_clock() {
    kp_sampler_t *s = nullptr;
    if (kp_sampler_new(&s, nullptr) != KP_OK) return 80;
    const char *names[] = {"task-clock"};
    kp_thread_t *t = nullptr;
    int rc = kp_thread_new(&t, s, names, 1);
    if (rc != KP_OK) {
        std::fprintf(stderr, "%s\n", kp_error_last_message());
        bool names_fix = std::strstr(kp_error_last_message(), "sysctl -w kernel.perf_event_paranoid=1") != nullptr;
        kp_sampler_free(s);
        return rc == KP_EPERM && names_fix ? 20 : 10 - rc;
    }
    uint64_t v = 0;
    rc = kp_thread_start(t) == KP_OK && kp_thread_sample(t, &v, 1) == KP_OK && v > 0 ? 0 : 81;
    kp_thread_free(t);
    kp_sampler_free(s);
    return rc;
}

}  // namespace

TEST(Paranoid, UnprivilegedUserCountsOwnThreadAtLevelTwoOrLess) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create an unprivileged child";
    int level = read_paranoid();
    if (level > 2) GTEST_SKIP() << "perf_event_paranoid is " << level << " here (> 2)";
    EXPECT_EQ(as_unprivileged_child(count_task_clock), 0);
}

TEST(Paranoid, LevelThreeGivesPermissionErrorWithTheSysctlFix) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to change perf_event_paranoid";
    int level = read_paranoid();
    if (level == -99) GTEST_SKIP() << kParanoid << " is not readable";
    if (level != 3 && !write_paranoid(3))
        GTEST_SKIP() << "cannot write " << kParanoid << " (read-only /proc in this container?)";
    int code = as_unprivileged_child(count_task_clock);
    if (level != 3) write_paranoid(level);
    EXPECT_EQ(read_paranoid(), level);
    if (code == 0) GTEST_SKIP() << "this kernel lets unprivileged users count at level 3 (no Debian patch)";
    EXPECT_EQ(code, 20) << "expected KP_EPERM naming 'sysctl -w kernel.perf_event_paranoid=1'";
}

// Container runtimes block perf_event_open with a seccomp filter that returns EPERM. Install
// such a filter in a child: the library must answer KP_EPERM with the fix, not crash.
TEST(Paranoid, SeccompBlockedPerfEventOpenGivesPermissionError) {
    fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        sock_filter filter[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        sock_fprog prog = {static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(91);
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) _exit(92);
        _exit(count_task_clock());
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    int code = WEXITSTATUS(status);
    if (code == 91 || code == 92) GTEST_SKIP() << "seccomp filters are not available here";
    EXPECT_EQ(code, 20) << "expected KP_EPERM naming 'sysctl -w kernel.perf_event_paranoid=1'";
}
