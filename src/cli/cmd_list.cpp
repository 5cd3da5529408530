// kpc list: the backend's event database.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/json_writer.hpp"
#include "cli/sampler.hpp"
#include "cli/stdout_output.hpp"
#include "cli/text_format.hpp"

namespace kpc_cli {
namespace {

constexpr size_t kNameWidth = 26;
constexpr size_t kKindWidth = 14;
constexpr size_t kAvailWidth = 13;

// kperf's details of one event on one line, e.g. "alias Cycles; counters 0x3; selector 0x2".
std::string kperf_details(const kp_event_t *e) {
    std::string d;
    auto add = [&](const std::string &part) { d += (d.empty() ? "" : "; ") + part; };
    if (const char *alias = kp_event_alias(e)) add(std::string("alias ") + alias);
    if (const char *fallback = kp_event_fallback(e)) add(std::string("fallback ") + fallback);
    int fixed = kp_event_fixed_counter(e);
    if (fixed >= 0) add(format("fixed counter %d", fixed));
    uint32_t mask = kp_event_counters_mask(e);
    if (mask) add(format("counters 0x%x", mask));
    add(format("selector 0x%llx", static_cast<unsigned long long>(kp_event_selector(e))));
    if (const char *errata = kp_event_errata(e)) add(std::string("errata: ") + errata);
    return d;
}

// perf's modifiers each backend takes, and where (docs/events.md, "Modifiers"). Each
// backend refuses the rest with its reason, when the event is named.
struct Modifiers {
    std::vector<const char *> accepted;
    const char *where;
};

Modifiers modifiers_of(int backend) {
    switch (backend) {
    case KP_BACKEND_PERF_EVENT:
        return {{":u", ":k", ":uk"},
                "on hardware events and on page faults, context switches and migrations; not on "
                "task-clock or cpu-clock"};
    case KP_BACKEND_KPERF:
        return {{":u", ":uk"},
                ":u on configurable events (cycles:u and instructions:u move to a configurable "
                "counter), :uk on fixed ones; never :k"};
    case KP_BACKEND_RECOUNT:
        return {{":uk"}, ":uk on cycles and instructions, which count both modes; never :u or :k"};
    default:
        return {{}, "none"};
    }
}

void print_event(std::string &out, const kp_event_t *e, bool kperf) {
    bool available = kp_event_is_available(e);
    out += "  " + pad_right(kp_event_name(e), kNameWidth) + " " +
           pad_right(kind_name(kp_event_kind(e)), kKindWidth) +
           pad_right(available ? "available" : "unavailable", kAvailWidth) +
           kp_event_native_name(e) + "\n";
    if (*kp_event_description(e)) out += std::string("      ") + kp_event_description(e) + "\n";
    if (kperf) out += "      " + kperf_details(e) + "\n";
    if (!available) out += std::string("      why unavailable: ") + kp_event_unavailable_reason(e) + "\n";
}

void print_text(kp_sampler_t *s) {
    size_t n = kp_sampler_event_count(s);
    bool kperf = kp_sampler_backend(s) == KP_BACKEND_KPERF;
    size_t available = 0;
    for (size_t i = 0; i < n; ++i) available += kp_event_is_available(kp_sampler_event_at(s, i)) ? 1 : 0;
    std::string out = format("%zu events of the %s backend on %s (pmu %s), %zu available here.\n",
                             n, kp_sampler_backend_name(s), kp_sampler_cpu_name(s),
                             kp_sampler_pmu_name(s), available);
    Modifiers m = modifiers_of(kp_sampler_backend(s));
    std::string accepted;
    for (const char *a : m.accepted) accepted += (accepted.empty() ? "" : ", ") + std::string(a);
    out += "Modifiers (perf's :u user, :k kernel, :uk both): " +
           (accepted.empty() ? std::string("none") : accepted + " (" + m.where + ")") + ".\n";
    for (int generic = 1; generic >= 0; --generic) {
        bool header = false;
        for (size_t i = 0; i < n; ++i) {
            const kp_event_t *e = kp_sampler_event_at(s, i);
            if (kp_event_is_generic(e) != generic) continue;
            if (!header) {
                out += generic ? "\nGeneric events (same meaning on every backend):\n"
                               : std::string("\nNative events of the ") + kp_sampler_backend_name(s) + " backend:\n";
                out += "  " + pad_right("EVENT", kNameWidth) + " " + pad_right("KIND", kKindWidth) +
                       pad_right("AVAILABILITY", kAvailWidth) + "NATIVE NAME\n";
                header = true;
            }
            print_event(out, e, kperf);
        }
    }
    write_stdout(out);
}

void print_json(kp_sampler_t *s) {
    std::string out;
    JsonWriter j(out);
    size_t n = kp_sampler_event_count(s);
    j.begin_object();
    write_json_header(j, "kpc-list/1", s);
    Modifiers m = modifiers_of(kp_sampler_backend(s));
    j.key("modifiers");
    j.begin_object();
    j.key("accepted");
    j.begin_array();
    for (const char *a : m.accepted) j.value(a);
    j.end_array();
    j.field("where", m.where);
    j.end_object();
    j.key("events");
    j.begin_array();
    for (size_t i = 0; i < n; ++i) {
        const kp_event_t *e = kp_sampler_event_at(s, i);
        bool available = kp_event_is_available(e);
        j.begin_object();
        j.field("name", kp_event_name(e));
        j.field("native_name", kp_event_native_name(e));
        j.field("generic", kp_event_is_generic(e) != 0);
        j.field("kind", kind_name(kp_event_kind(e)));
        j.field("available", available);
        j.field_or_null("unavailable_reason", !available, kp_event_unavailable_reason(e));
        j.field("description", kp_event_description(e));
        j.field("alias", kp_event_alias(e));  // null when none
        j.field("errata", kp_event_errata(e));  // null when none
        j.field("fallback", kp_event_fallback(e));  // null when none
        j.field("counters_mask", static_cast<uint64_t>(kp_event_counters_mask(e)));
        j.field("selector", kp_event_selector(e));
        j.field_or_null("fixed_counter", kp_event_fixed_counter(e) >= 0, kp_event_fixed_counter(e));
        j.end_object();
    }
    j.end_array();
    j.end_object();
    write_stdout(out);
}

}  // namespace

int run_list(const Options &o) {
    Sampler sampler(o.backend, kExitError);
    if (o.json)
        print_json(sampler.get());
    else
        print_text(sampler.get());
    return kExitOk;
}

}  // namespace kpc_cli
