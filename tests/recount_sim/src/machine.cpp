// The machine's identity: sysctlbyname (apple-recount.md §5) and mach_timebase_info (§4).
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "model.h"

namespace rcsim {
namespace {

// One sysctl value, integer or string.
struct Value {
    bool found = false;
    bool is_string = false;
    int number = 0;
    char text[32] = {};
};

Value integer(int v) {
    Value out;
    out.found = true;
    out.number = v;
    return out;
}

Value string(const char *s) {
    Value out;
    out.found = true;
    out.is_string = true;
    std::snprintf(out.text, sizeof out.text, "%s", s);
    return out;
}

const char *perflevel_name(const Config &c, int level) {
    if (c.perf_levels == 1) return "Standard";
    return level == 0 ? "Performance" : "Efficiency";  // perf level 0 is the fastest kind
}

Value lookup(const Config &c, const char *name) {
    if (std::strcmp(name, "kern.osproductversion") == 0) return string(c.version);
    if (std::strcmp(name, "kern.osrelease") == 0) {
        // Darwin major: 10.13–10.15 → 17–19, 11–15 → 20–24, 26 → 25. The minor follows
        // macOS's minor (exact for 14.x and 15.x, approximate before).
        const int darwin = c.major == 10 ? c.minor + 4 : (c.major >= 26 ? c.major - 1 : c.major + 9);
        const int minor = c.major == 10 ? 0 : c.minor;
        char text[32];
        std::snprintf(text, sizeof text, "%d.%d.0", darwin, minor);
        return string(text);
    }
    if (std::strcmp(name, "kern.precise_user_kernel_time") == 0) return integer(1);
    if (std::strcmp(name, "kern.monotonic.supported") == 0 && !c.vm) return integer(1);
    if (std::strcmp(name, "kern.pervasive_energy") == 0 && at_least(c, 13, 0)) return integer(0);
    if (std::strcmp(name, "hw.nperflevels") == 0 && at_least(c, 12, 0)) return integer(c.perf_levels);
    for (int level = 0; at_least(c, 13, 0) && level < c.perf_levels; ++level) {
        char oid[32];
        std::snprintf(oid, sizeof oid, "hw.perflevel%d.name", level);
        if (std::strcmp(name, oid) == 0) return string(perflevel_name(c, level));
    }
    return Value{};
}

}  // namespace
}  // namespace rcsim

using namespace rcsim;

RCSIM_EXPORT int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) {
    (void)newlen;
    if (name == nullptr) return fail(EFAULT);
    const Value v = lookup(config(), name);
    if (!v.found) return fail(ENOENT);
    if (newp != nullptr) return fail(EPERM);  // every simulated name is read-only
    const void *data = v.is_string ? static_cast<const void *>(v.text) : &v.number;
    const size_t len = v.is_string ? std::strlen(v.text) + 1 : sizeof v.number;
    if (oldp == nullptr) {  // size query
        if (oldlenp != nullptr) *oldlenp = len;
        return 0;
    }
    // sysctl_old_user: copy what fits, report the bytes copied, ENOMEM if that was not all.
    const size_t room = oldlenp != nullptr ? *oldlenp : 0;
    const size_t n = room < len ? room : len;
    if (!copy_out(oldp, data, n)) return fail(EFAULT);
    if (oldlenp != nullptr) *oldlenp = n;
    return n == len ? 0 : fail(ENOMEM);
}

RCSIM_EXPORT int mach_timebase_info(rcsim::mach_timebase_info_data_t *info) {
    if (info == nullptr) return 4;  // KERN_INVALID_ARGUMENT
    const Config c = config();
    info->numer = c.numer;
    info->denom = c.denom;
    return 0;  // KERN_SUCCESS
}
