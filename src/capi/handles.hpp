// The structs behind the opaque C handles: thin owners of the C++ core objects.
#pragma once

#include <memory>
#include <utility>

#include "core/counting_thread.hpp"
#include "core/session.hpp"

struct kp_sampler {
    std::shared_ptr<kpc::Session> session;
};

struct kp_thread {
    template <typename... Args>
    explicit kp_thread(Args &&...args) : impl(std::forward<Args>(args)...) {}
    kpc::CountingThread impl;
};
