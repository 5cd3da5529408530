// The body shared by the event-name targets: look every fuzzed name up, then try to count
// them together on the calling thread, and check what the API promises on each path.
#pragma once

#include "fuzz_input.hpp"
#include "kpc/kpc.h"

namespace kpc_fuzz {

// Names are the input's newline-separated words (a few more than kp_thread_new accepts, so
// that its limit is exercised too). Every thread handle is freed before returning.
void exercise_event_names(kp_sampler_t *s, FuzzInput &in);

}  // namespace kpc_fuzz
