#include "cli/check_report.hpp"

#include <string>

#include "cli/cli_error.hpp"
#include "cli/counter_counts.hpp"
#include "cli/json_writer.hpp"
#include "cli/sampler.hpp"
#include "cli/stdout_output.hpp"
#include "cli/text_format.hpp"

namespace kpc_cli {
namespace {

struct Tally {
    size_t pass = 0, fail = 0, cannot_count = 0;
};

Tally tally(const std::vector<CheckResult> &results) {
    Tally t;
    for (const CheckResult &r : results) {
        if (r.verdict == Verdict::pass) ++t.pass;
        else if (r.verdict == Verdict::fail) ++t.fail;
        else ++t.cannot_count;
    }
    return t;
}

std::string os_line(const Environment &env) {
    std::string s = env.os_name + " " + env.os_version + " " + env.machine;
    if (!env.os_detail.empty()) s += " (" + env.os_detail + ")";
    return s;
}

std::string lazy_line(const LazyBufferProbe &p) {
    if (!p.probed) return "not probed: " + p.not_probed_reason;
    return "a thread that existed before counting began: first read " +
           errno_label(p.first_errno) + ", immediate retry " + errno_label(p.retry_errno) +
           ", after a context switch " + errno_label(p.after_switch_errno);
}

const char *verdict_label(Verdict v) {
    switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    default: return "N/A ";
    }
}

const char *exit_meaning(int status) {
    if (status == 0) return "everything that could be counted passed";
    if (status == kExitCheckFailed) return "a check failed";
    return "nothing could be counted here";
}

}  // namespace

void print_check_text(kp_sampler_t *s, const Environment &env,
                      const std::vector<CheckResult> &results, int exit_status) {
    std::string out = "Environment\n";
    auto line = [&](const char *label, const std::string &value) {
        out += "  " + pad_right(std::string(label) + ":", 30) + value + "\n";
    };
    line("kpc version", kp_version_string());
    line("os", os_line(env));
    line("backend", kp_sampler_backend_name(s));
    line("cpu", std::string(kp_sampler_cpu_name(s)) + " (id " + kp_sampler_cpu_id(s) + ")");
    line("pmu", kp_sampler_pmu_name(s));
    line("counters", counter_counts_text(env.counters));
    line("may count", env.access_status == KP_OK
                          ? std::string("yes")
                          : std::string("no (") + status_name(env.access_status) + "): " +
                                env.access_reason);
    if (env.kperf) {
        const KperfEnvironment &k = *env.kperf;
        line("kpep db name (struct)", k.db_name);
        line("kpep db name (kpep_db_name)", k.db_api_name.empty() ? "(not exported)" : k.db_api_name);
        line("marketing name", k.marketing_name.empty() ? "(unknown)" : k.marketing_name);
        line("kpep_event stride", format("%zu bytes", k.event_stride));
        line("chip known to libkpc", k.chip_known ? "yes" : "no");
        line("configurable counters",
             format("%u before forcing, %u after%s", k.configurable_before_force,
                    k.configurable_after_force,
                    k.configurable_after_force == 0 ? " (could not force them)" : ""));
        line("lazy thread buffer", lazy_line(k.lazy_buffer));
    }
    out += "\nChecks\n";
    auto row = [&](Verdict v, const std::string &event, const std::string &check,
                   const std::string &message) {
        out += "  " + std::string(verdict_label(v)) + "  " + pad_right(event, 16) +
               pad_right(check, 16) + (v == Verdict::cannot_count ? "cannot count here: " : "") +
               message + "\n";
    };
    for (size_t i = 0; i < results.size();) {
        // An event that cannot count gives every check the same reason: say it once.
        size_t end = i;
        bool same_reason = true;
        while (end < results.size() && results[end].event == results[i].event) {
            same_reason = same_reason && results[end].verdict == Verdict::cannot_count &&
                          results[end].message == results[i].message;
            ++end;
        }
        if (same_reason) {
            row(Verdict::cannot_count, results[i].event, "(all checks)", results[i].message);
        } else {
            for (size_t k = i; k < end; ++k)
                row(results[k].verdict, results[k].event, results[k].check, results[k].message);
        }
        i = end;
    }
    Tally t = tally(results);
    out += format("\n%zu passed, %zu failed, %zu cannot count here: %s (exit %d)\n", t.pass,
                  t.fail, t.cannot_count, exit_meaning(exit_status), exit_status);
    write_stdout(out);
}

void print_check_json(kp_sampler_t *s, const Environment &env,
                      const std::vector<CheckResult> &results, int exit_status) {
    std::string out;
    JsonWriter j(out);
    j.begin_object();
    write_json_header(j, "kpc-check/1", s);

    j.key("environment");
    j.begin_object();
    j.key("os");
    j.begin_object();
    j.field("name", env.os_name);
    j.field("version", env.os_version);
    j.field("detail", env.os_detail);
    j.field("machine", env.machine);
    j.end_object();
    write_counter_counts_json(j, env.counters);
    j.key("access");
    j.begin_object();
    j.field("allowed", env.access_status == KP_OK);
    j.field("status", status_name(env.access_status));
    j.field_or_null("reason", env.access_status != KP_OK, env.access_reason);
    j.end_object();
    j.key("kperf");
    if (!env.kperf) {
        j.null();
    } else {
        const KperfEnvironment &k = *env.kperf;
        j.begin_object();
        j.field("db_name", k.db_name);
        j.field("db_api_name", k.db_api_name);
        j.field("marketing_name", k.marketing_name);
        j.field("event_stride", static_cast<uint64_t>(k.event_stride));
        j.field("chip_known", k.chip_known);
        j.field("configurable_before_force", static_cast<uint64_t>(k.configurable_before_force));
        j.field("configurable_after_force", static_cast<uint64_t>(k.configurable_after_force));
        j.key("lazy_buffer");
        j.begin_object();
        j.field("probed", k.lazy_buffer.probed);
        const bool probed = k.lazy_buffer.probed;
        j.field_or_null("first_read", probed, errno_label(k.lazy_buffer.first_errno));
        j.field_or_null("retry", probed, errno_label(k.lazy_buffer.retry_errno));
        j.field_or_null("after_context_switch", probed, errno_label(k.lazy_buffer.after_switch_errno));
        j.field_or_null("reason", !probed, k.lazy_buffer.not_probed_reason);
        j.end_object();
        j.end_object();
    }
    j.end_object();

    j.key("checks");
    j.begin_array();
    for (const CheckResult &r : results) {
        j.begin_object();
        j.field("event", r.event);
        j.field("check", r.check);
        j.field("verdict", verdict_name(r.verdict));
        j.field_or_null("counts_kernel", r.counts_kernel >= 0, r.counts_kernel == 1);
        j.field("message", r.message);
        j.key("values");
        j.begin_object();
        for (const auto &v : r.values) j.field(v.first, v.second);
        j.end_object();
        j.end_object();
    }
    j.end_array();

    Tally t = tally(results);
    j.key("summary");
    j.begin_object();
    j.field("pass", static_cast<uint64_t>(t.pass));
    j.field("fail", static_cast<uint64_t>(t.fail));
    j.field("cannot_count", static_cast<uint64_t>(t.cannot_count));
    j.field("exit_status", exit_status);
    j.end_object();
    j.end_object();
    write_stdout(out);
}

}  // namespace kpc_cli
