// A kp_thread_t whose creator has exited, used by a thread that glibc gave the creator's
// pthread_t and thread pointer: before issue 8 (section 1, item 1) the owner check passed,
// and the read subtracted the dead thread's starting counts from the new thread's counter,
// so the value wrapped. The handle must refuse with KP_EWRONG_THREAD instead.
#include <pthread.h>

#include <thread>

#include "kperf_fixture.hpp"

namespace kperf_test {
namespace {

using ThreadIdentity = KperfTest;

TEST_F(ThreadIdentity, HandleOfAnExitedThreadIsRefusedNotReadAgainstItsCounts) {
    Sampler s = must_sampler();
    ASSERT_TRUE(s);
    kp_thread_t *t = nullptr;
    pthread_t creator{};
    int created = KP_ERROR, started = KP_ERROR, sampled = KP_ERROR;
    uint64_t creator_value = 0;
    std::thread([&] {
        creator = pthread_self();
        const char *names[] = {"cycles"};
        created = kp_thread_new(&t, s.get(), names, 1);
        if (created != KP_OK) return;
        started = kp_thread_start(t);
        burn(4);  // the creator's counter runs well ahead of a fresh thread's
        sampled = kp_thread_sample(t, &creator_value, 1);
    }).join();
    Thread owned(t);
    ASSERT_EQ(created, KP_OK);
    ASSERT_EQ(started, KP_OK);
    ASSERT_EQ(sampled, KP_OK);
    ASSERT_GT(creator_value, 0u);

    bool reused = false;
    for (int i = 0; i < 20 && !reused; ++i) {
        pthread_t id{};
        int rc = KP_ERROR, rc_stop = KP_ERROR;
        uint64_t v = 0;
        std::string msg;
        std::thread([&] {
            id = pthread_self();
            rc = kp_thread_sample(t, &v, 1);
            msg = kp_error_last_message();
            rc_stop = kp_thread_stop(t);
        }).join();
        reused = pthread_equal(id, creator) != 0;
        // Before the fix: KP_OK, and v below creator_value (a wrapped difference).
        EXPECT_EQ(rc, KP_EWRONG_THREAD) << "attempt " << i << " (same pthread_t: " << reused
                                        << ") read " << v << " after the creator's "
                                        << creator_value;
        EXPECT_NE(msg.find("thread that created it"), std::string::npos) << msg;
        EXPECT_EQ(rc_stop, KP_EWRONG_THREAD) << "attempt " << i;
    }
    RecordProperty("pthread_t_reused", reused ? "yes" : "no");
    EXPECT_EQ(kp_thread_is_running(t), 1);
}

}  // namespace
}  // namespace kperf_test
