// Each counted event holds a file descriptor. When the process runs out, kp_thread_new must
// fail cleanly with the fix ("ulimit -n"), leak nothing, and recover once fds are free.
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int open_fds() {
    int n = 0;
    for (int fd = 0; fd < 1024; ++fd)
        if (fcntl(fd, F_GETFD) != -1) ++n;
    return n;
}

// The kernel gives EMFILE when no descriptor number below RLIMIT_NOFILE is free, so the
// limit is placed by counting free numbers, not open descriptors: an inherited descriptor
// with a high number (bash keeps 255) takes no low slot.
rlim_t limit_leaving_free(int free_slots) {
    int fd = 0;
    for (int seen = 0; seen < free_slots; ++fd)
        if (fcntl(fd, F_GETFD) == -1) ++seen;
    return static_cast<rlim_t>(fd);
}

// In a child (the limit is process-wide): exit 0 when the behaviour is right, else a code
// saying which check failed.
int exhaust_descriptors() {
    kp_sampler_t *s = nullptr;
    if (kp_sampler_new(&s, nullptr) != KP_OK) return 10;
    rlimit lim{};
    getrlimit(RLIMIT_NOFILE, &lim);
    // Fourteen free slots: four 3-event handles fit, and the fifth opens two descriptors
    // before failing on its third, which it must close again. Failing with two free (not
    // zero) matters under UBSan: its vptr check probes memory through a pipe, and without
    // two free descriptors it reports a false "invalid vptr".
    const int open_now = open_fds();
    lim.rlim_cur = limit_leaving_free(14);
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) return 11;

    const char *names[] = {"task-clock", "page-faults", "context-switches"};
    std::vector<kp_thread_t *> threads;
    int rc = KP_OK;
    for (int i = 0; i < 40 && rc == KP_OK; ++i) {
        kp_thread_t *t = nullptr;
        rc = kp_thread_new(&t, s, names, 3);
        if (rc == KP_OK) threads.push_back(t);
    }
    if (rc != KP_EKERNEL) return 12;
    if (!std::strstr(kp_error_last_message(), "ulimit -n")) return 13;
    if (kp_error_last_os_code() != EMFILE) return 14;
    if (threads.empty()) return 15;
    // The failed kp_thread_new gave back the descriptors it had opened before failing.
    if (open_fds() != open_now + 3 * static_cast<int>(threads.size())) return 17;
    kp_thread_free(threads.back());
    threads.pop_back();
    kp_thread_t *t = nullptr;
    if (kp_thread_new(&t, s, names, 3) != KP_OK) return 16;
    threads.push_back(t);
    for (kp_thread_t *h : threads) kp_thread_free(h);
    kp_sampler_free(s);
    return 0;
}

}  // namespace

TEST(FdLimit, RunningOutOfDescriptorsIsACleanErrorWithTheFix) {
    fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) _exit(exhaust_descriptors());
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10 sampler, 11 setrlimit, 12 status, 13 message, "
                                         "14 errno, 15 no handle fit, 16 no recovery, 17 descriptors leaked";
}
