// `kpc diff`: compare two kpc stat results event by event, with a significance test and an
// optional gate. Pure functions over already-read files, so tests can drive them directly.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/diff_stat_file.hpp"
#include "cli/diff_welch_test.hpp"

namespace kpc_cli {

struct DiffGate {
    std::optional<double> all_pct;               // --fail-above PCT
    std::map<std::string, double> event_pct;     // --fail-above EVENT=PCT (wins over all_pct)
    double alpha = 0.05;                         // --alpha

    bool active() const { return all_pct || !event_pct.empty(); }
    std::optional<double> threshold(const std::string &event) const;
};

enum class ChangeVerdict { increase, decrease, no_change, untested, not_counted };

struct EventDiff {
    std::string name;
    std::string unit;
    ChangeVerdict verdict = ChangeVerdict::not_counted;
    Summary base, changed;
    std::optional<double> change_pct;  // nullopt when the base mean is 0 and the new is not
    std::optional<WelchResult> test;   // nullopt: fewer than 2 runs, or not counted
    std::optional<double> threshold_pct;
    bool failed = false;               // grew significantly by more than its threshold
};

struct DiffReport {
    std::vector<EventDiff> events;
    std::vector<std::string> notes;    // things the user should know that do not stop the diff
    bool failed = false;
};

// Throws DiffInputError when the two results cannot be compared honestly: different
// backends, scopes, events (names and order), units, or an event counted in only one; or a
// gate on results with fewer than 2 runs; or a gate naming an event neither file has.
DiffReport compare_stat_results(const StatResultFile &base, const StatResultFile &changed,
                                const DiffGate &gate);

const char *change_verdict_name(ChangeVerdict v);  // "increase", "decrease", "no_change", ...

}  // namespace kpc_cli
