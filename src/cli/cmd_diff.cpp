// kpc diff: read two kpc stat --json results, compare them (diff_compare.hpp), print the
// table or JSON on stdout, and exit 1 when a --fail-above gate trips (docs/cli.md).
#include <algorithm>
#include <string>

#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/diff_compare.hpp"
#include "cli/json_writer.hpp"
#include "cli/stdout_output.hpp"
#include "cli/text_format.hpp"
#include "kpc/kpc.h"

namespace kpc_cli {
namespace {

const char kTestName[] = "Welch's t-test, two-sided";

DiffGate gate_from(const Options &o) {
    DiffGate g;
    g.alpha = o.alpha;
    for (const auto &[event, pct] : o.fail_above) {
        if (event.empty())
            g.all_pct = pct;
        else
            g.event_pct[event] = pct;
    }
    return g;
}

std::string change_text(const EventDiff &d) {
    if (d.verdict == ChangeVerdict::not_counted) return "";
    if (!d.change_pct) return "new";  // from 0 to more than 0
    return format("%+.2f %%", *d.change_pct);
}

std::string p_text(const EventDiff &d) {
    if (!d.test) return "";
    if (d.test->p_value < 0.0001) return "<0.0001";
    return format("%.4f", d.test->p_value);
}

std::string verdict_text(const EventDiff &d) {
    switch (d.verdict) {
    case ChangeVerdict::increase: return "increase";
    case ChangeVerdict::decrease: return "decrease";
    case ChangeVerdict::no_change: return "no significant change";
    case ChangeVerdict::untested: return "untested (1 run)";
    case ChangeVerdict::not_counted: return "not counted in either";
    }
    return "";
}

std::string gate_text(const EventDiff &d) {
    if (!d.threshold_pct || d.verdict == ChangeVerdict::not_counted) return "";
    return format("%s (limit +%g %%)", d.failed ? "FAIL" : "ok", *d.threshold_pct);
}

std::string mean_text(const EventDiff &d, const Summary &s) {
    if (d.verdict == ChangeVerdict::not_counted) return "-";
    return group_thousands(s.mean, 1);
}

std::string text_report(const StatResultFile &base, const StatResultFile &changed,
                        const DiffGate &gate, const DiffReport &r) {
    std::string out = format("kpc diff: %s (%zu runs) -> %s (%zu runs); %s, alpha %g\n\n",
                             base.path.c_str(), base.runs, changed.path.c_str(), changed.runs,
                             kTestName, gate.alpha);
    std::vector<std::vector<std::string>> rows = {
        {"event", "base mean", "new mean", "change", "p", "verdict", gate.active() ? "gate" : ""}};
    for (const EventDiff &d : r.events)
        rows.push_back({d.name + (d.unit.empty() ? "" : " (" + d.unit + ")"), mean_text(d, d.base),
                        mean_text(d, d.changed), change_text(d), p_text(d), verdict_text(d),
                        gate_text(d)});
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto &row : rows)
        for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (const auto &row : rows) {
        std::string line;
        for (size_t i = 0; i < row.size(); ++i) {
            // Names and verdicts to the left, numbers to the right.
            bool left = i == 0 || i >= 5;
            line += left ? pad_right(row[i], width[i]) : pad_left(row[i], width[i]);
            line += "  ";
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out += line + "\n";
    }
    for (const std::string &note : r.notes) out += "\nnote: " + note;
    if (!r.notes.empty()) out += "\n";
    if (gate.active()) {
        std::vector<std::string> failed;
        for (const EventDiff &d : r.events)
            if (d.failed) failed.push_back(d.name);
        out += failed.empty() ? "\ngate: passed\n"
                              : "\ngate: FAILED: " + join_words(failed, ", ") +
                                    " grew significantly past the limit\n";
    }
    return out;
}

void write_side(JsonWriter &w, const char *key, const StatResultFile &f) {
    w.key(key);
    w.begin_object();
    w.field("path", std::string_view(f.path));
    w.field("backend", std::string_view(f.backend));
    w.field("runs", static_cast<uint64_t>(f.runs));
    w.end_object();
}

// null when `s` is null.
void write_summary(JsonWriter &w, const char *key, const Summary *s) {
    w.key(key);
    if (!s) {
        w.null();
        return;
    }
    w.begin_object();
    w.field("mean", s->mean);
    w.field("stddev", s->stddev);
    w.field("runs", static_cast<uint64_t>(s->values.size()));
    w.end_object();
}

std::string json_report(const StatResultFile &base, const StatResultFile &changed,
                        const DiffGate &gate, const DiffReport &r) {
    std::string out;
    JsonWriter w(out);
    w.begin_object();
    w.field("schema", "kpc-diff/1");
    w.field("kpc_version", kp_version_string());
    w.field("test", "welch-t-two-sided");
    w.field("alpha", gate.alpha);
    write_side(w, "base", base);
    write_side(w, "new", changed);
    w.key("events");
    w.begin_array();
    for (const EventDiff &d : r.events) {
        bool counted = d.verdict != ChangeVerdict::not_counted;
        w.begin_object();
        w.field("name", std::string_view(d.name));
        w.field("unit", std::string_view(d.unit));
        w.field("verdict", change_verdict_name(d.verdict));
        write_summary(w, "base", counted ? &d.base : nullptr);
        write_summary(w, "new", counted ? &d.changed : nullptr);
        w.field("change_pct", counted ? d.change_pct : std::nullopt);
        w.field("p_value", d.test ? std::optional(d.test->p_value) : std::nullopt);
        w.field("t", d.test ? std::optional(d.test->t) : std::nullopt);
        w.field("degrees_of_freedom", d.test ? std::optional(d.test->degrees_of_freedom) : std::nullopt);
        w.field("threshold_pct", d.threshold_pct);
        w.field("failed", d.failed);
        w.end_object();
    }
    w.end_array();
    w.key("notes");
    w.begin_array();
    for (const std::string &n : r.notes) w.value(std::string_view(n));
    w.end_array();
    w.field("gate", gate.active() ? (r.failed ? "failed" : "passed") : "none");
    w.field("exit_status", r.failed ? int(kExitDiffGate) : int(kExitOk));
    w.end_object();
    out += "\n";
    return out;
}

}  // namespace

int run_diff(const Options &o) {
    DiffGate gate = gate_from(o);
    try {
        StatResultFile base = read_stat_result_file(o.diff_files[0]);
        StatResultFile changed = read_stat_result_file(o.diff_files[1]);
        DiffReport r = compare_stat_results(base, changed, gate);
        write_stdout(o.json ? json_report(base, changed, gate, r) : text_report(base, changed, gate, r));
        return r.failed ? kExitDiffGate : kExitOk;
    } catch (const DiffInputError &e) {
        throw CliError(e.what(), kExitDiffInput);
    }
}

}  // namespace kpc_cli
