// Hardware events: real assertions where the PMU exists, a printed skip where it does not.
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace {

// Asks the kernel, not libkpc, whether this thread can count hardware instructions (user
// space only, which perf_event_paranoid 2 allows). Returns "" when it can, else the kernel's
// reason; `err` gets errno. A libkpc failure where this succeeds is a failure, not a skip.
std::string kernel_cannot_count_instructions(int *err = nullptr) {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (err) *err = fd < 0 ? errno : 0;
    if (fd < 0) return std::string("perf_event_open(PERF_COUNT_HW_INSTRUCTIONS): ") + std::strerror(errno);
    close(int(fd));
    return "";
}

}  // namespace

TEST(Hardware, InstructionsAndCyclesGrowWithWork) {
    std::string why = kernel_cannot_count_instructions();
    if (!why.empty()) GTEST_SKIP() << "no hardware counters: " << why;
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK);
    ASSERT_EQ(kp_sampler_access(s), KP_OK) << "the kernel counts instructions, libkpc says: "
                                           << kp_error_last_message();
    const char *names[] = {"cycles", "instructions"};
    kp_thread_t *t = nullptr;
    ASSERT_EQ(kp_thread_new(&t, s, names, 2), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    uint64_t a[2], b[2];
    ASSERT_EQ(kp_thread_sample(t, a, 2), KP_OK);
    volatile uint64_t x = 0;
    for (int i = 0; i < 10000000; ++i) x = x + i;
    ASSERT_EQ(kp_thread_sample(t, b, 2), KP_OK);
    EXPECT_GT(b[1] - a[1], 10000000u);  // at least one instruction per iteration
    EXPECT_GT(b[0] - a[0], 0u);
    kp_thread_free(t);
    kp_sampler_free(s);
}

TEST(Hardware, NoPmuGivesTheDocumentedMessage) {
    // ENOENT: the kernel has no such hardware event, i.e. no PMU. Other refusals (EACCES
    // under a strict perf_event_paranoid) are not "no PMU".
    int err = 0;
    std::string why = kernel_cannot_count_instructions(&err);
    if (err != ENOENT)
        GTEST_SKIP() << "the no-PMU message cannot be observed: "
                     << (why.empty() ? std::string("this machine counts instructions") : why);
    kp_sampler_t *s = nullptr;
    ASSERT_EQ(kp_sampler_new(&s, nullptr), KP_OK);
    EXPECT_EQ(kp_sampler_access(s), KP_EUNSUPPORTED) << kp_error_last_message();
    const kp_event_t *e = nullptr;
    ASSERT_EQ(kp_sampler_event_find(&e, s, "instructions"), KP_OK);
    EXPECT_EQ(kp_event_is_available(e), 0);
    EXPECT_NE(std::string(kp_event_unavailable_reason(e)).find("hardware events are not supported on this machine"),
              std::string::npos)
        << kp_event_unavailable_reason(e);
    kp_sampler_free(s);
}
