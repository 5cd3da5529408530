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

// The same diagnosis as a status + message, without throwing (for availability probes).
int diagnose_open_error(int err, const std::string &event, bool hardware, bool in_group,
                        std::string *message);

}  // namespace kpc::perf
