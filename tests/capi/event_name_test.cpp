// Event names longer than 256 bytes are refused at once with KP_EINVAL (issue 8, section 1,
// item 4): before, a 1 MiB name went through the "did you mean" search, O(length x events).
#include <gtest/gtest.h>
#include <kpc/kpc.h>

#include <string>

namespace {

constexpr size_t kMaxName = 256;  // documented in kpc/sampler.h and docs/error-handling.md

struct Sampler {
    kp_sampler_t *s = nullptr;
    Sampler() { EXPECT_EQ(kp_sampler_new(&s, nullptr), KP_OK) << kp_error_last_message(); }
    ~Sampler() { kp_sampler_free(s); }
};

bool contains(const std::string &s, const char *part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(EventNameLength, OneMebibyteNameIsInvalidNotUnknown) {
    Sampler s;
    const std::string huge(1 << 20, 'x');
    const kp_event_t *e = nullptr;
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, huge.c_str()), KP_EINVAL);
    EXPECT_EQ(e, nullptr);
    std::string msg = kp_error_last_message();
    EXPECT_TRUE(contains(msg, "256 bytes")) << msg.substr(0, 300);
    EXPECT_LT(msg.size(), 400u) << "the message must not echo the whole name";

    const char *names[] = {"task-clock", huge.c_str()};
    kp_thread_t *t = nullptr;
    EXPECT_EQ(kp_thread_new(&t, s.s, names, 2), KP_EINVAL);
    EXPECT_EQ(t, nullptr);
    msg = kp_error_last_message();
    EXPECT_TRUE(contains(msg, "256 bytes")) << msg.substr(0, 300);
    EXPECT_TRUE(contains(msg, "'xxxxxxxx")) << "quotes the start of the name: " << msg.substr(0, 300);
}

TEST(EventNameLength, TheLimitIsInclusive) {
    Sampler s;
    const kp_event_t *e = nullptr;
    // At the limit the name is looked up (and is unknown); one byte more is refused.
    const std::string at_limit(kMaxName, 'y');
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, at_limit.c_str()), KP_EUNKNOWN_EVENT);
    const std::string over(kMaxName + 1, 'y');
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, over.c_str()), KP_EINVAL);
    EXPECT_TRUE(contains(kp_error_last_message(), "256 bytes")) << kp_error_last_message();
}

TEST(EventNameLength, LongTyposStillGetAnAnswer) {
    Sampler s;
    const kp_event_t *e = nullptr;
    // A name that starts like an event but goes on: unknown, with the usual pointer to 'kpc list'.
    const std::string long_typo = "task-clock" + std::string(200, 'z');
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, long_typo.c_str()), KP_EUNKNOWN_EVENT);
    EXPECT_TRUE(contains(kp_error_last_message(), "kpc list")) << kp_error_last_message();
    // Short typos keep their suggestions.
    EXPECT_EQ(kp_sampler_event_find(&e, s.s, "page-fault"), KP_EUNKNOWN_EVENT);
    EXPECT_TRUE(contains(kp_error_last_message(), "did you mean: page-faults"))
        << kp_error_last_message();
}
