// kpc info: what this machine and process can count.
#include <cstdio>
#include <string>

#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/counter_counts.hpp"
#include "cli/json_writer.hpp"
#include "cli/sampler.hpp"
#include "cli/stdout_output.hpp"
#include "cli/text_format.hpp"

namespace kpc_cli {
namespace {

struct Access {
    int status = KP_OK;
    std::string reason;  // library message; empty when allowed
    std::string fix;     // what to do about it; empty when allowed
};

// The library's messages already name the cause; this adds the remedy for the status, in
// the terms of the backend in use.
std::string fix_for(int status, int backend) {
    bool kperf = backend == KP_BACKEND_KPERF;
    if (backend == KP_BACKEND_RECOUNT && status == KP_EUNSUPPORTED)
        return "run on a Mac itself (not a virtual machine) with macOS 12.3 or later (13.0 for "
               "P/E counts), or as root with the kperf backend";
    switch (status) {
    case KP_EPERM:
        return kperf ? "run kpc as root (sudo kpc ...)"
                     : "allow per-thread counting with 'sudo sysctl -w "
                       "kernel.perf_event_paranoid=1', or run as root or with CAP_PERFMON";
    case KP_EBUSY:
        return "stop the other tool that holds the counters (another profiler, Instruments, "
               "or a perf session), then try again";
    case KP_EUNSUPPORTED:
        return kperf ? "use a Mac whose CPU the kpep database knows (kpc list shows it)"
                     : "count hardware events on a machine that exposes its PMU (bare metal, or "
                       "a VM with PMU passthrough / vPMU enabled); software events such as "
                       "task-clock and page-faults work without one";
    case KP_ELOAD:
    case KP_ELAYOUT:
    case KP_EFRAMEWORK:
        return "check KPC_KPERF_PATH / KPC_KPERFDATA_PATH, or use --backend perf_event on Linux";
    default:
        return "see the reason above";
    }
}

Access check_access(kp_sampler_t *s) {
    Access a;
    kp_error_clear();
    a.status = kp_sampler_access(s);
    if (a.status != KP_OK) {
        a.reason = last_kp_error(a.status);
        a.fix = fix_for(a.status, kp_sampler_backend(s));
    }
    return a;
}


void print_text(kp_sampler_t *s, const Access &a, const CounterCounts &c, size_t total,
                size_t available) {
    std::string out;
    auto line = [&](const char *label, const std::string &value) {
        out += pad_right(std::string(label) + ":", 20) + value + "\n";
    };
    line("kpc version", kp_version_string());
    line("backend", kp_sampler_backend_name(s));
    line("  chosen because", kp_sampler_backend_reason(s));
    line("cpu", kp_sampler_cpu_name(s));
    line("cpu id", kp_sampler_cpu_id(s));
    line("pmu", kp_sampler_pmu_name(s));
    line("counters", counter_counts_text(c));
    line("events", format("%zu (%zu available here)", total, available));
    // The variables libkpc ignored because kpc runs privileged (setuid), if any.
    std::string ignored = kp_ignored_environment();
    if (!ignored.empty()) line("environment", ignored);
    if (a.status == KP_OK) {
        line("hardware counting", "allowed");
    } else {
        line("hardware counting", std::string("not possible (") + kp_strerror(a.status) + ")");
        line("  reason", a.reason);
        line("  fix", a.fix);
    }
    // Whether kp_thread_sample reads counters without a system call, and if not why.
    if (kp_sampler_user_reads(s) == 1)
        line("user-space reads", "yes (samples of hardware events read the counters without a system call)");
    else
        line("user-space reads", std::string("no: ") + kp_sampler_user_reads_reason(s));
    write_stdout(out);
}

void print_json(kp_sampler_t *s, const Access &a, const CounterCounts &c, size_t total,
                size_t available) {
    std::string out;
    JsonWriter j(out);
    j.begin_object();
    write_json_header(j, "kpc-info/1", s);
    j.field("backend_reason", kp_sampler_backend_reason(s));
    write_counter_counts_json(j, c);
    j.key("events");
    j.begin_object();
    j.field("total", static_cast<uint64_t>(total));
    j.field("available", static_cast<uint64_t>(available));
    j.end_object();
    std::string ignored = kp_ignored_environment();
    j.field("environment_ignored", ignored.empty() ? nullptr : ignored.c_str());  // null: none
    j.key("access");
    j.begin_object();
    j.field("allowed", a.status == KP_OK);
    j.field("status", status_name(a.status));
    j.field("code", a.status);
    j.field_or_null("reason", a.status != KP_OK, a.reason);
    j.field_or_null("fix", a.status != KP_OK, a.fix);
    j.end_object();
    j.key("user_reads");
    j.begin_object();
    const bool user_reads = kp_sampler_user_reads(s) == 1;
    j.field("available", user_reads);
    j.field("reason", user_reads ? nullptr : kp_sampler_user_reads_reason(s));  // null: yes
    j.end_object();
    j.end_object();
    write_stdout(out);
}

}  // namespace

int run_info(const Options &o) {
    Sampler sampler(o.backend, kExitError);
    kp_sampler_t *s = sampler.get();
    CounterCounts c = read_counter_counts(s);
    size_t total = kp_sampler_event_count(s), available = 0;
    for (size_t i = 0; i < total; ++i) available += kp_event_is_available(kp_sampler_event_at(s, i)) ? 1 : 0;
    Access a = check_access(s);
    if (o.json)
        print_json(s, a, c, total, available);
    else
        print_text(s, a, c, total, available);
    return kExitOk;
}

}  // namespace kpc_cli
