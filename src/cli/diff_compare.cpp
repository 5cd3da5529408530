#include "cli/diff_compare.hpp"

#include <cmath>

namespace kpc_cli {

std::optional<double> DiffGate::threshold(const std::string &event) const {
    auto it = event_pct.find(event);
    if (it != event_pct.end()) return it->second;
    return all_pct;
}

const char *change_verdict_name(ChangeVerdict v) {
    switch (v) {
    case ChangeVerdict::increase: return "increase";
    case ChangeVerdict::decrease: return "decrease";
    case ChangeVerdict::no_change: return "no_change";
    case ChangeVerdict::untested: return "untested";
    case ChangeVerdict::not_counted: return "not_counted";
    }
    return "?";
}

namespace {

[[noreturn]] void mismatch(const std::string &why) {
    throw DiffInputError("the two results cannot be compared: " + why +
                         "; make both with the same kpc stat command line");
}

void check_comparable(const StatResultFile &base, const StatResultFile &changed) {
    if (base.backend != changed.backend)
        mismatch("backend \"" + base.backend + "\" in " + base.path + ", \"" + changed.backend +
                 "\" in " + changed.path);
    if (base.scope != changed.scope)
        mismatch("scope \"" + base.scope + "\" in " + base.path + ", \"" + changed.scope + "\" in " +
                 changed.path);
    if (base.events.size() != changed.events.size())
        mismatch(std::to_string(base.events.size()) + " events in " + base.path + ", " +
                 std::to_string(changed.events.size()) + " in " + changed.path);
    for (size_t i = 0; i < base.events.size(); ++i) {
        const StatResultEvent &b = base.events[i], &c = changed.events[i];
        std::string at = "event " + std::to_string(i + 1) + " ";
        if (b.name != c.name)
            mismatch(at + "is \"" + b.name + "\" in " + base.path + ", \"" + c.name + "\" in " +
                     changed.path);
        if (b.unit != c.unit) mismatch(at + "\"" + b.name + "\" has different units");
        if ((b.status == "counted") != (c.status == "counted"))
            mismatch("\"" + b.name + "\" is " + b.status + " in " + base.path + " but " + c.status +
                     " in " + changed.path);
    }
}

void check_gate(const StatResultFile &base, const StatResultFile &changed, const DiffGate &gate) {
    if (!gate.active()) return;
    for (const auto &[name, pct] : gate.event_pct) {
        (void)pct;
        bool known = false;
        for (const StatResultEvent &e : base.events) known = known || e.name == name;
        if (!known)
            throw DiffInputError("--fail-above names \"" + name + "\", which " + base.path +
                                 " does not count; use one of the names given to kpc stat -e");
    }
    if (base.runs < 2 || changed.runs < 2)
        throw DiffInputError("--fail-above needs a significance test, which needs at least 2 runs in "
                             "each file (" + base.path + ": " + std::to_string(base.runs) + ", " +
                             changed.path + ": " + std::to_string(changed.runs) +
                             "); make them with kpc stat -r 5 --json");
}

EventDiff compare_event(const StatResultEvent &b, const StatResultEvent &c, const DiffGate &gate) {
    EventDiff d;
    d.name = b.name;
    d.unit = b.unit;
    d.threshold_pct = gate.threshold(b.name);
    if (b.status != "counted") return d;  // not counted in either (checked before)
    d.base = summarize(b.values);
    d.changed = summarize(c.values);
    if (d.base.mean != 0)
        d.change_pct = 100 * (d.changed.mean - d.base.mean) / d.base.mean;
    else if (d.changed.mean == 0)
        d.change_pct = 0;
    d.test = welch_t_test(d.base, d.changed);
    if (!d.test) {
        d.verdict = ChangeVerdict::untested;
        return d;
    }
    bool significant = d.test->p_value < gate.alpha;
    if (!significant || d.changed.mean == d.base.mean)
        d.verdict = ChangeVerdict::no_change;
    else
        d.verdict = d.changed.mean > d.base.mean ? ChangeVerdict::increase : ChangeVerdict::decrease;
    // No change_pct means growth from 0: larger than any threshold.
    d.failed = d.threshold_pct && d.verdict == ChangeVerdict::increase &&
               (!d.change_pct || *d.change_pct > *d.threshold_pct);
    return d;
}

}  // namespace

DiffReport compare_stat_results(const StatResultFile &base, const StatResultFile &changed,
                                const DiffGate &gate) {
    check_comparable(base, changed);
    check_gate(base, changed, gate);
    DiffReport r;
    if (base.cpu_id != changed.cpu_id)
        r.notes.push_back("the results come from different CPUs (" + base.cpu_id + ", " +
                          changed.cpu_id + "); counts may differ for that reason alone");
    if (base.command != changed.command)
        r.notes.push_back("the commands differ");
    for (const StatResultFile *f : {&base, &changed})
        if (f->interrupted)
            r.notes.push_back(f->path + " was interrupted; only its " + std::to_string(f->runs) +
                              " completed runs are compared");
    if (base.runs < 2 || changed.runs < 2)
        r.notes.push_back("no significance test with fewer than 2 runs per file; use kpc stat -r 5");
    for (size_t i = 0; i < base.events.size(); ++i) {
        r.events.push_back(compare_event(base.events[i], changed.events[i], gate));
        r.failed = r.failed || r.events.back().failed;
    }
    return r;
}

}  // namespace kpc_cli
