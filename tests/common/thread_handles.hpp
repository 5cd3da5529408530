// A sampler and one kp_thread_t, freed together when a test ends (also when an ASSERT
// returns early).
#pragma once

#include <kpc/kpc.h>

struct ThreadHandles {
    kp_sampler_t *s = nullptr;
    kp_thread_t *t = nullptr;
    ThreadHandles() = default;
    ThreadHandles(const ThreadHandles &) = delete;
    ThreadHandles &operator=(const ThreadHandles &) = delete;
    ~ThreadHandles() {
        kp_thread_free(t);
        kp_sampler_free(s);
    }
};
