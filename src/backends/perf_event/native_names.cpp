#include "backends/perf_event/native_names.hpp"

#include <linux/perf_event.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "core/error.hpp"

#if defined(KPC_HAVE_LIBPFM)
#include <perfmon/pfmlib_perf_event.h>
#endif

namespace kpc::perf {
namespace {

// The database keeps one entry per encoding, so "r1", "r01", "r0000000000000001" and a
// libpfm4 name for the same code are one event, named by the first spelling looked up.
std::string encoding_key(const Event &e) {
    char key[80];
    std::snprintf(key, sizeof key, "%x:%llx:%llx:%llx", e.perf_type,
                  static_cast<unsigned long long>(e.perf_config),
                  static_cast<unsigned long long>(e.perf_config1),
                  static_cast<unsigned long long>(e.perf_config2));
    return key;
}

bool resolve_raw(std::string_view name, Event &out) {
    if (name.size() < 2 || name[0] != 'r') return false;
    std::string_view hex = name.substr(1);
    bool looks_raw = true;
    for (char c : hex)
        if (!std::isxdigit(static_cast<unsigned char>(c))) looks_raw = false;
    if (!looks_raw) {
        // "ref-cycles" and friends start with 'r' too; only "r" + hex-ish names are raw codes.
        if (hex.size() > 16 || hex.find_first_of("-_:.") != std::string_view::npos) return false;
        bool digit = false;
        for (char c : hex) {
            if (!std::isalnum(static_cast<unsigned char>(c))) return false;
            digit = digit || std::isdigit(static_cast<unsigned char>(c));
        }
        if (!digit) return false;  // a word such as "random": an unknown name, not a bad code
        fail(KP_EUNKNOWN_EVENT, "'" + std::string(name) +
                                    "' is not a raw event: write r followed by 1 to 16 hex "
                                    "digits, e.g. r00c0");
    }
    if (hex.size() > 16)
        fail(KP_EUNKNOWN_EVENT, "'" + std::string(name) + "': a raw code has at most 16 hex digits");
    out = Event{};
    out.name = std::string(name);
    out.native_name = out.name;
    out.description = "Raw PMU event code (perf_event PERF_TYPE_RAW)";
    out.kind = KP_EVENT_CONFIGURABLE;
    out.perf_type = PERF_TYPE_RAW;
    out.perf_config = std::stoull(std::string(hex), nullptr, 16);
    out.selector = out.perf_config;
    out.lookup_key = encoding_key(out);
    return true;
}

#if defined(KPC_HAVE_LIBPFM)
bool pfm_ready() {
    static std::once_flag once;
    static bool ok = false;
    std::call_once(once, [] { ok = pfm_initialize() == PFM_SUCCESS; });
    return ok;
}

bool resolve_pfm(std::string_view name, Event &out) {
    if (!pfm_ready()) return false;
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    pfm_perf_encode_arg_t arg;
    std::memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    std::string n(name);
    if (pfm_get_os_event_encoding(n.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS)
        return false;
    out = Event{};
    out.name = n;
    out.native_name = n;
    out.description = "PMU event encoded by libpfm4";
    pfm_event_info_t info;
    std::memset(&info, 0, sizeof info);
    info.size = sizeof info;
    if (pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT, &info) == PFM_SUCCESS && info.desc)
        out.description = info.desc;
    out.kind = attr.type == PERF_TYPE_SOFTWARE ? KP_EVENT_SOFTWARE : KP_EVENT_CONFIGURABLE;
    out.counts_kernel = out.kind == KP_EVENT_SOFTWARE;  // hardware events exclude the kernel
    out.perf_type = attr.type;
    out.perf_config = attr.config;
    out.perf_config1 = attr.config1;
    out.perf_config2 = attr.config2;
    out.unit = perf_unit(attr.type, attr.config);
    out.selector = attr.config;
    out.lookup_key = encoding_key(out);
    return true;
}
#endif

}  // namespace

kp_event_unit_t perf_unit(uint32_t type, uint64_t config) {
    const bool clock = type == PERF_TYPE_SOFTWARE &&
                       (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK);
    return clock ? KP_EVENT_UNIT_NANOSECONDS : KP_EVENT_UNIT_COUNT;
}

bool resolve_native(std::string_view name, Event &out) {
    if (resolve_raw(name, out)) return true;
#if defined(KPC_HAVE_LIBPFM)
    if (resolve_pfm(name, out)) return true;
#endif
    return false;
}

}  // namespace kpc::perf
