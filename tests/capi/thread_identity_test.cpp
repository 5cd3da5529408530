// A kp_thread_t belongs to the thread that created it for that thread's whole life, and to
// no thread after it. glibc gives a new thread the stack, pthread_t and thread pointer of a
// thread that has exited and been joined, so an owner check on those ids would accept the
// newcomer (issue 8, section 1, item 1).
#include <gtest/gtest.h>
#include <kpc/kpc.h>
#include <pthread.h>

#include <string>
#include <thread>

namespace {

struct Sampler {
    kp_sampler_t *s = nullptr;
    Sampler() { EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message(); }
    ~Sampler() { kp_sampler_free(s); }
};

struct Attempt {
    pthread_t id{};
    int start = KP_OK, sample = KP_OK, sample_full = KP_OK, stop = KP_OK;
    uint64_t value = 0;
    std::string message;
};

// Every kp_thread_* call that is reserved to the owner, made from a new thread.
Attempt use_from_new_thread(kp_thread_t *t) {
    Attempt a;
    std::thread([&] {
        a.id = pthread_self();
        a.sample = kp_thread_sample(t, &a.value, 1);
        a.message = kp_error_last_message();
        a.sample_full = kp_thread_sample_full(t, &a.value, nullptr, 1, nullptr, nullptr);
        a.stop = kp_thread_stop(t);
        a.start = kp_thread_start(t);
    }).join();
    return a;
}

}  // namespace

TEST(ThreadIdentity, HandleOfAnExitedThreadIsRefusedOnAThreadThatReusesItsId) {
    Sampler s;
    const char *names[] = {"task-clock"};
    kp_thread_t *t = nullptr;
    pthread_t creator{};
    int created = KP_ERROR, started = KP_ERROR;
    std::thread([&] {
        creator = pthread_self();
        created = kp_thread_new(&t, s.s, names, 1);
        if (created == KP_OK) started = kp_thread_start(t);
    }).join();
    ASSERT_EQ(created, KP_OK);
    ASSERT_EQ(started, KP_OK);

    // glibc usually hands the very next thread the exited one's id; try a few threads so
    // the reuse is exercised, and every one of them must be refused.
    bool reused = false;
    for (int i = 0; i < 20 && !reused; ++i) {
        Attempt a = use_from_new_thread(t);
        reused = pthread_equal(a.id, creator) != 0;
        EXPECT_EQ(a.sample, KP_EWRONG_THREAD) << "attempt " << i << " (same pthread_t: " << reused
                                              << ") read " << a.value;
        EXPECT_NE(a.message.find("thread that created it"), std::string::npos) << a.message;
        EXPECT_EQ(a.sample_full, KP_EWRONG_THREAD) << "attempt " << i;
        EXPECT_EQ(a.stop, KP_EWRONG_THREAD) << "attempt " << i;
        EXPECT_EQ(a.start, KP_EWRONG_THREAD) << "attempt " << i;
    }
    RecordProperty("pthread_t_reused", reused ? "yes" : "no");
    EXPECT_EQ(kp_thread_is_running(t), 1);  // the refused stop did nothing
    kp_thread_free(t);                      // freeing is allowed from any thread
}

TEST(ThreadIdentity, OwnerKeepsItsHandleWhileOtherThreadsComeAndGo) {
    Sampler s;
    const char *names[] = {"task-clock"};
    kp_thread_t *t = nullptr;
    ASSERT_EQ(kp_thread_new(&t, s.s, names, 1), KP_OK) << kp_error_last_message();
    ASSERT_EQ(kp_thread_start(t), KP_OK);
    // Other threads creating and dropping their own handles must not disturb the owner's.
    for (int i = 0; i < 3; ++i) {
        std::thread([&] {
            kp_thread_t *mine = nullptr;
            ASSERT_EQ(kp_thread_new(&mine, s.s, names, 1), KP_OK) << kp_error_last_message();
            EXPECT_EQ(kp_thread_start(mine), KP_OK);
            uint64_t v = 0;
            EXPECT_EQ(kp_thread_sample(t, &v, 1), KP_EWRONG_THREAD);
            EXPECT_EQ(kp_thread_sample(mine, &v, 1), KP_OK);
            kp_thread_free(mine);
        }).join();
    }
    uint64_t v = 0;
    EXPECT_EQ(kp_thread_sample(t, &v, 1), KP_OK) << kp_error_last_message();
    EXPECT_GT(v, 0u);
    kp_thread_free(t);
}
