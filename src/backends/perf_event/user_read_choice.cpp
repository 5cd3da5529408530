#include "backends/perf_event/user_read_choice.hpp"

#include <cstdio>

namespace kpc::perf {

std::string user_read_refusal(const UserReadFacts &f) {
    if (!f.switched_off.empty()) return f.switched_off;
    if (!f.arch)
        return "libkpc reads counters in user space on arm64 and x86-64 only; this build reads "
               "them with read()";
    if (!f.software_event.empty())
        return "event '" + f.software_event +
               "' is a software event, which only read() gives, and one read() serves the "
               "whole set; count the hardware events with a kp_thread_t of their own to read "
               "them in user space";
    if (!f.refused.empty()) return f.refused;
    if (!f.unmapped.empty()) return f.unmapped;
    // arm64 publishes cap_user_rdpmc even when the switch is off, and index 0 (observed
    // on Linux 6.1): the switch is the reason whatever the page says.
    if (f.arm64 && f.user_access_setting == 0)
        return "kernel.perf_user_access=0: run `sudo sysctl -w kernel.perf_user_access=1`";
    if (!f.no_rdpmc_event.empty()) {
        if (!f.arm64 && f.user_access_setting == 0)
            return "/sys/bus/event_source/devices/cpu/rdpmc is 0: run `echo 1 | sudo tee "
                   "/sys/bus/event_source/devices/cpu/rdpmc`";
        return "cap_user_rdpmc=0: the kernel does not let this thread read event '" +
               f.no_rdpmc_event +
               "' in user space (its perf_event page says so; arm64 needs Linux 5.17 or later "
               "and kernel.perf_user_access=1)";
    }
    if (!f.off_counter.empty() || f.multiplexed)
        return "multiplexed: at the first kp_thread_start the events were not all on hardware "
               "counters (other events held them: this thread's other handles, or another "
               "program's); count fewer events at once";
    if (!f.disagreement.empty())
        return "the user-space read disagreed with read() at the first kp_thread_start (" +
               f.disagreement + "), so libkpc reads with read(); please report this";
    return "";
}

std::string bracket_disagreement(const std::vector<std::string> &names, const uint64_t *before,
                                 const uint64_t *read, const uint64_t *after) {
    for (size_t i = 0; i < names.size(); ++i) {
        // :uk counts the read() itself, a few thousand; a wrong counter, width or offset
        // breaks the order or lands far away.
        if (before[i] <= read[i] && read[i] <= after[i] && after[i] - before[i] < (uint64_t{1} << 24))
            continue;
        char msg[120];
        std::snprintf(msg, sizeof msg, "': %llu, then read() %llu, then %llu",
                      static_cast<unsigned long long>(before[i]),
                      static_cast<unsigned long long>(read[i]),
                      static_cast<unsigned long long>(after[i]));
        return "event '" + names[i] + msg;
    }
    return "";
}

int read_user_access_setting() {
#if defined(__aarch64__)
    const char *path = "/proc/sys/kernel/perf_user_access";
#else
    const char *path = "/sys/bus/event_source/devices/cpu/rdpmc";
#endif
    FILE *f = std::fopen(path, "re");
    if (!f) return -1;
    int v = -1;
    if (std::fscanf(f, "%d", &v) != 1) v = -1;
    std::fclose(f);
    return v;
}

}  // namespace kpc::perf
