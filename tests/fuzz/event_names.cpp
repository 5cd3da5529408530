#include "event_names.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace kpc_fuzz {
namespace {

constexpr size_t kMaxNames = 34;  // kp_thread_new takes 1 to 32

void check_event(const kp_event_t *e, const std::string &name) {
    // Every accessor of a found event returns a usable string.
    KPC_FUZZ_CHECK(kp_event_name(e) != nullptr, name);
    KPC_FUZZ_CHECK(kp_event_native_name(e) != nullptr, name);
    KPC_FUZZ_CHECK(kp_event_description(e) != nullptr, name);
    if (!kp_event_is_available(e)) {
        const char *why = kp_event_unavailable_reason(e);
        KPC_FUZZ_CHECK(why != nullptr && *why, name);
    }
}

}  // namespace

void exercise_event_names(kp_sampler_t *s, FuzzInput &in) {
    std::vector<std::string> names = in.words(kMaxNames);
    for (const std::string &name : names) {
        const kp_event_t *e = reinterpret_cast<const kp_event_t *>(&names);  // must be overwritten
        int rc = kp_sampler_event_find(&e, s, name.c_str());
        if (rc == KP_OK) {
            KPC_FUZZ_CHECK(e != nullptr, name);
            check_event(e, name);
        } else {
            KPC_FUZZ_CHECK(e == nullptr, name);
            KPC_FUZZ_CHECK(rc == KP_EUNKNOWN_EVENT || rc == KP_EINVAL, name);
            KPC_FUZZ_CHECK(*kp_error_last_message() != '\0', name);
        }
    }

    std::vector<const char *> ptrs;
    for (const std::string &n : names) ptrs.push_back(n.c_str());
    kp_thread_t *t = reinterpret_cast<kp_thread_t *>(&ptrs);  // must be overwritten
    int rc = kp_thread_new(&t, s, ptrs.data(), ptrs.size());
    if (rc != KP_OK) {
        KPC_FUZZ_CHECK(t == nullptr, "kp_thread_new failed but left a handle");
        KPC_FUZZ_CHECK(*kp_error_last_message() != '\0', "kp_thread_new failed without a message");
        return;
    }
    KPC_FUZZ_CHECK(t != nullptr, "kp_thread_new succeeded without a handle");
    KPC_FUZZ_CHECK(kp_thread_event_count(t) == names.size(), "event count");
    uint64_t values[kMaxNames] = {};
    if (kp_thread_start(t) == KP_OK) {
        KPC_FUZZ_CHECK(kp_thread_is_running(t) == 1, "started but not running");
        kp_thread_sample(t, values, names.size());
        KPC_FUZZ_CHECK(kp_thread_stop(t) == KP_OK, kp_error_last_message());
        KPC_FUZZ_CHECK(kp_thread_is_running(t) == 0, "stopped but running");
    }
    kp_thread_free(t);
}

}  // namespace kpc_fuzz
