// kp_thread_calibrate(): the cost of an empty measured region, from the public sampling
// call itself, so that it measures exactly what a harness's region boundaries cost.
#include <cstdint>
#include <cstring>
#include <string>

#include "capi/guard.hpp"
#include "kpc/errors.h"
#include "kpc/thread.h"

namespace {

constexpr size_t kMaxEvents = KP_MAX_EVENTS;
constexpr unsigned kDefaultRounds = 100;
constexpr unsigned kMaxRounds = 1000000;
constexpr uint64_t kUntouched = ~uint64_t{0};

// One empty region, as a user measures it: two public calls with nothing between them but
// the second call's arguments (t, b and n wait in callee-saved registers). Out of line, so
// the surrounding code cannot add loads there; a status check between the calls would be
// counted too, so the first call's failure is seen afterwards, by the sentinel it leaves
// (a failing sample writes no values, and no counter total reaches 2^64 - 1).
__attribute__((noinline)) int empty_region(kp_thread_t *t, uint64_t *a, uint64_t *b, size_t n) {
    a[0] = kUntouched;
    kp_thread_sample(t, a, n);
    const int rc = kp_thread_sample(t, b, n);
    if (rc != KP_OK || a[0] != kUntouched) return rc;
    // Only the first call failed; a success records nothing, so its error is the last one.
    const int first = kp_error_last_status();
    return first != KP_OK ? first : static_cast<int>(KP_ERROR);
}

}  // namespace

extern "C" int kp_thread_calibrate(kp_thread_t *t, uint64_t *offsets, size_t count,
                                   unsigned int rounds) {
    return kpc::guarded([&]() -> int {
        if (!t) kpc::fail(KP_EINVAL, "kp_thread_calibrate: thread is NULL");
        if (!offsets) kpc::fail(KP_EINVAL, "kp_thread_calibrate: offsets is NULL");
        if (rounds > kMaxRounds)
            kpc::fail(KP_EINVAL, "kp_thread_calibrate: rounds is " + std::to_string(rounds) +
                                     "; at most 1000000 (0 means 100)");
        const size_t n = kp_thread_event_count(t);
        if (count < n)
            kpc::fail(KP_EBUFSIZE, "kp_thread_calibrate: offsets holds " +
                                       std::to_string(count) + " values; the handle has " +
                                       std::to_string(n) + " events");
        if (!kp_thread_is_running(t))
            kpc::fail(KP_ESTATE, "kp_thread_calibrate: the handle is stopped, so its totals "
                                 "do not move; call kp_thread_start first");
        if (rounds == 0) rounds = kDefaultRounds;
        uint64_t a[kMaxEvents], b[kMaxEvents], best[kMaxEvents];
        std::memset(best, 0xff, sizeof best);
        for (unsigned r = 0; r < rounds; ++r) {
            // The status and message of a failing sample are already the thread's last error.
            if (int rc = empty_region(t, a, b, n)) return rc;
            for (size_t i = 0; i < n; ++i)
                if (b[i] - a[i] < best[i]) best[i] = b[i] - a[i];
        }
        std::memcpy(offsets, best, n * sizeof offsets[0]);
        return static_cast<int>(KP_OK);
    });
}
