// Whether a kp_thread_t's samples are read in user space (user_read.hpp) or with read(),
// and why not, with the fix: the decision as a pure function of what was found, so it is
// tested without a PMU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kpc::perf {

// What a handle's creation and first start found, in the order they are checked.
struct UserReadFacts {
    std::string switched_off;    // why the switch is off (options, KPC_USER_READS), or ""
    bool arch = true;            // this build has a counter-read instruction
    std::string software_event;  // the first software event of the set, or ""
    std::string refused;         // an event the kernel would not open for user access: why
    std::string unmapped;        // a page that could not be mapped: why
    std::string no_rdpmc_event;  // the first event whose page says cap_user_rdpmc = 0, or ""
    // The kernel's switch for user access, as read from procfs/sysfs: arm64's
    // kernel.perf_user_access (0 decides alone: arm64 still says cap_user_rdpmc=1 then),
    // x86's /sys/bus/event_source/devices/cpu/rdpmc (with cap_user_rdpmc=0); -1 unknown.
    int user_access_setting = -1;
    bool arm64 = false;          // which of the two settings applies
    std::string off_counter;     // at the first start: an event not on a counter (index 0)
    bool multiplexed = false;    // at the first start: the group was multiplexed
    std::string disagreement;    // at the first start: the user-space read and read() differ
};

// "" when samples are read in user space; otherwise why not and the fix.
std::string user_read_refusal(const UserReadFacts &f);

// The start check: for every event, a user-space read `before`, then read()'s value, then
// a user-space read `after` must be in order and close (a few thousand counts apart at
// most). "" when they are; else which event and its three values.
std::string bracket_disagreement(const std::vector<std::string> &names, const uint64_t *before,
                                 const uint64_t *read, const uint64_t *after);

// The kernel's switch for user access on this architecture (UserReadFacts), -1 when unreadable.
int read_user_access_setting();

}  // namespace kpc::perf
