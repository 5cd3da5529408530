// Which macOS the recount calls run on, and what that version's kernel does with them.
// Pure functions of the version strings, so every version's rules are tested on Linux.
#pragma once

#include <string>
#include <string_view>

namespace kpc::apple {

struct MacosVersion {
    int major = 0;  // 0: unknown
    int minor = 0;
    bool known() const { return major > 0; }
    bool at_least(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
    std::string text() const;  // "14.2", or "unknown"
};

// kern.osproductversion: "15.5", "14.2.1", "13.0" -> {15,5}, {14,2}, {13,0}; unknown if malformed.
MacosVersion parse_product_version(std::string_view s);
// kern.osrelease, the Darwin version: "24.5.0" -> 15.5, "23.2.0" -> 14.2. Darwin 21 and 22
// number their minors one ahead of macOS 12 and 13 (13.0 is Darwin 22.1); unknown before 20.
MacosVersion from_darwin_release(std::string_view s);

// Per-thread totals (thread_selfcounts kind 1): macOS 12.3 exports the libSystem stub.
constexpr int kTotalsMajor = 12, kTotalsMinor = 3;
// Per-perf-level kinds, kinds with times, PROC_PIDTHREADCOUNTS and RUSAGE_INFO_V6: 13.0.
constexpr int kRecountMajor = 13, kRecountMinor = 0;
bool has_recount_kinds(const MacosVersion &v);

// Whether the per-perf-level array of thread_selfcounts is in the kernel's CPU-kind order,
// [Efficiency, Performance], always 2 entries (macOS 13.0 to 14.1), rather than perf-level
// order [level 0 = P, level 1 = E], min(2, levels) entries (14.2 and later).
bool efficiency_entry_first(const MacosVersion &v);

}  // namespace kpc::apple
