// The Power-Manager grant (force_all_ctrs): saved at sampler creation, forced, restored
// on release and on free, and shared by reference count between samplers of a process.
#include "kperf_fixture.hpp"

namespace kperf_test {
namespace {

using Session = KperfTest;

TEST_F(Session, ForcesCountersAndRestoresOnRelease) {
    ASSERT_EQ(boot_.force_all_ctrs, 0);
    ASSERT_EQ(boot_.force_owner, 0);
    Sampler s = must_sampler();
    kpsim_kernel_state st = kernel_state();
    EXPECT_EQ(st.force_all_ctrs, 1);
    EXPECT_EQ(st.force_owner, 1);

    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"cycles", "branches"}), KP_OK);
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK);
    EXPECT_NE(kernel_state().counting, 0u);

    ASSERT_EQ(kp_sampler_release(s.get()), KP_OK) << last_message();
    st = kernel_state();
    EXPECT_EQ(st.force_all_ctrs, 0);
    EXPECT_EQ(st.force_owner, 0);
    EXPECT_EQ(st.counting, 0u) << "release stops the session's counting";
    EXPECT_EQ(st.thread_counting, 0u);

    uint64_t v[2];
    EXPECT_EQ(kp_thread_sample(t.get(), v, 2), KP_ESTATE);
    EXPECT_EQ(kp_thread_start(t.get()), KP_ESTATE);
    Thread u;
    EXPECT_EQ(new_thread(&u, s.get(), {"cycles"}), KP_ESTATE);
    EXPECT_EQ(kp_sampler_access(s.get()), KP_ESTATE);
    EXPECT_EQ(kp_sampler_release(s.get()), KP_OK) << "release is idempotent";
    // The database stays readable after release.
    const kp_event_t *e = nullptr;
    EXPECT_EQ(kp_sampler_event_find(&e, s.get(), "branches"), KP_OK);
    t.reset();
    EXPECT_EQ(kernel_state().force_all_ctrs, 0);
}

TEST_F(Session, RestoresOnFree) {
    {
        Sampler s = must_sampler();
        EXPECT_EQ(kernel_state().force_all_ctrs, 1);
    }
    EXPECT_EQ(kernel_state().force_all_ctrs, 0);
    EXPECT_EQ(kernel_state().force_owner, 0);
}

TEST_F(Session, ThreadKeepsSessionAliveAfterSamplerFree) {
    Sampler s = must_sampler();
    Thread t;
    ASSERT_EQ(new_thread(&t, s.get(), {"instructions"}), KP_OK);
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK);
    s.reset();  // the thread holds the session
    EXPECT_EQ(kernel_state().force_all_ctrs, 1);
    burn(2);
    uint64_t v = 0;
    EXPECT_EQ(kp_thread_sample(t.get(), &v, 1), KP_OK) << last_message();
    EXPECT_GT(v, 0u);
    t.reset();
    EXPECT_EQ(kernel_state().force_all_ctrs, 0);
    EXPECT_EQ(kernel_state().counting, 0u);
}

TEST_F(Session, TwoSamplersShareTheGrant) {
    Sampler a = must_sampler();
    Sampler b = must_sampler();
    EXPECT_EQ(kernel_state().force_all_ctrs, 1);
    ASSERT_EQ(kp_sampler_release(a.get()), KP_OK);
    EXPECT_EQ(kernel_state().force_all_ctrs, 1) << "b still needs the counters";
    EXPECT_EQ(kp_sampler_access(b.get()), KP_OK) << last_message();
    Thread t;
    ASSERT_EQ(new_thread(&t, b.get(), {"cycles"}), KP_OK) << last_message();
    ASSERT_EQ(kp_thread_start(t.get()), KP_OK);
    t.reset();
    b.reset();
    EXPECT_EQ(kernel_state().force_all_ctrs, 0) << "the last sampler restores the saved value";
    a.reset();
    EXPECT_EQ(kernel_state().force_all_ctrs, 0);
}

TEST_F(Session, ReleaseOfOneSamplerStopsOnlyItsCounting) {
    Sampler a = must_sampler();
    Sampler b = must_sampler();
    Thread ta, tb;
    ASSERT_EQ(new_thread(&ta, a.get(), {"branches"}), KP_OK);
    ASSERT_EQ(new_thread(&tb, b.get(), {"branches"}), KP_OK);
    ASSERT_EQ(kp_thread_start(ta.get()), KP_OK);
    ASSERT_EQ(kp_thread_start(tb.get()), KP_OK);
    ASSERT_EQ(kp_sampler_release(a.get()), KP_OK);
    EXPECT_NE(kernel_state().counting, 0u) << "b's handle still counts";
    uint64_t x = 0, y = 0;
    ASSERT_EQ(kp_thread_sample(tb.get(), &x, 1), KP_OK);
    burn(2);
    ASSERT_EQ(kp_thread_sample(tb.get(), &y, 1), KP_OK);
    EXPECT_GT(y, x);
    ASSERT_EQ(kp_thread_stop(tb.get()), KP_OK);
    EXPECT_EQ(kernel_state().counting, 0u);
}

}  // namespace
}  // namespace kperf_test
