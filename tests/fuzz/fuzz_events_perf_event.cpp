// libFuzzer target: event names -> kp_sampler_event_find and kp_thread_new on the Linux
// perf_event backend. Checks after every input that no file descriptor was left open.
#include <unistd.h>

#include <cstdint>
#include <string>

#include "event_names.hpp"
#include "fuzz_input.hpp"

namespace {

// The lowest free descriptor: any descriptor an input leaks takes it first.
int lowest_free_fd() {
    int fd = dup(0);
    KPC_FUZZ_CHECK(fd >= 0, "dup failed");
    close(fd);
    return fd;
}

// What a descriptor refers to ("anon_inode:[perf_event]", a path), for the report.
std::string fd_target(int fd) {
    char buf[256] = {};
    ssize_t n = readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "?";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // Measured per input: libFuzzer itself opens pipes between inputs (to its symbolizer).
    const int free_fd = lowest_free_fd();
    // A sampler per input: raw names ("r1a2") are added to its database for good, so one
    // long-lived sampler would grow with every new name the fuzzer invents.
    kp_sampler_options_t opts;
    kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
    opts.backend = KP_BACKEND_PERF_EVENT;
    kp_sampler_t *s = nullptr;
    int rc = kp_sampler_new(&s, &opts);
    KPC_FUZZ_CHECK(rc == KP_OK, kp_error_last_message());
    kpc_fuzz::FuzzInput in(data, size);
    kpc_fuzz::exercise_event_names(s, in);
    kp_sampler_free(s);
    KPC_FUZZ_CHECK(lowest_free_fd() == free_fd, "left open: descriptor " + std::to_string(free_fd) +
                                                     " -> " + fd_target(free_fd));
    return 0;
}
