// Turning perf_event_open errno values into kpc errors that say what to do.
#pragma once

#include <string>

namespace kpc::perf {

// Current /proc/sys/kernel/perf_event_paranoid, or 99 when unreadable.
int paranoid_level();

// Throw the kpc::Error for a failed perf_event_open of `event` (in a group when
// `in_group`), where `hardware` says whether it needs the PMU.
[[noreturn]] void throw_open_error(int err, const std::string &event, bool hardware, bool in_group);

// Whether `err` says the process ran short of something (descriptors, memory) rather than
// anything about the event: such a failure must not decide the event's availability.
bool is_transient(int err);

// The same diagnosis as a status + reason, without throwing. Without `event`, for a reason
// reported per event (kp_event_unavailable_reason, kp_process_event_status):
// "perf_event_open: <cause>", leaving out the name its reader already has, so that events
// refused for one cause share one text. With it, "perf_event_open(<event>): <cause>".
int diagnose_open_error(int err, bool hardware, bool in_group, std::string *reason,
                        const std::string &event = "");

}  // namespace kpc::perf
