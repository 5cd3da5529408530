// Knob parsing and the value model. An invalid knob is a broken test setup: the simulator
// says which variable is wrong and what it accepts, then aborts, rather than guessing.
#include "model.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "../rcsim.h"

namespace rcsim {
namespace {

std::mutex g_mu;
Config g_config;

[[noreturn]] void bad_knob(const char *name, const char *value, const char *expected) {
    std::fprintf(stderr, "recount_sim: %s=\"%s\" is invalid: expected %s\n", name, value, expected);
    std::abort();
}

const char *env(const char *name) {
    const char *v = std::getenv(name);
    return (v != nullptr && *v != '\0') ? v : nullptr;
}

// Digits only, no sign, no spaces; false on overflow beyond `max`.
bool parse_uint(const char *s, unsigned long long max, unsigned long long *out, const char **end) {
    if (*s < '0' || *s > '9') return false;
    unsigned long long v = 0;
    for (; *s >= '0' && *s <= '9'; ++s) {
        v = v * 10 + static_cast<unsigned>(*s - '0');
        if (v > max) return false;
    }
    *out = v;
    *end = s;
    return true;
}

void parse_version(Config *c) {
    const char *v = env("RCSIM_MACOS");
    if (v == nullptr) v = "15.5";
    const char *expected = "a macOS version MAJOR.MINOR[.PATCH] from 10.13 on, e.g. 12.6, 14.1, 15.5";
    unsigned long long major, minor, patch;
    const char *p;
    if (!parse_uint(v, 99, &major, &p) || *p != '.' || !parse_uint(p + 1, 99, &minor, &p))
        bad_knob("RCSIM_MACOS", v, expected);
    if (*p == '.' && !parse_uint(p + 1, 99, &patch, &p)) bad_knob("RCSIM_MACOS", v, expected);
    if (*p != '\0' || major < 10 || (major == 10 && minor < 13) || std::strlen(v) >= sizeof c->version)
        bad_knob("RCSIM_MACOS", v, expected);
    c->major = static_cast<int>(major);
    c->minor = static_cast<int>(minor);
    std::snprintf(c->version, sizeof c->version, "%s", v);
}

Config load() {
    Config c{};
    parse_version(&c);

    c.perf_levels = 2;
    if (const char *v = env("RCSIM_PERF_LEVELS")) {
        if (std::strcmp(v, "1") != 0 && std::strcmp(v, "2") != 0) bad_knob("RCSIM_PERF_LEVELS", v, "1 or 2");
        c.perf_levels = *v - '0';
    }

    c.p_share = 0.75;
    if (const char *v = env("RCSIM_P_SHARE")) {
        char *end = nullptr;
        errno = 0;
        double d = std::strtod(v, &end);
        if (errno != 0 || *end != '\0' || !(d >= 0.0 && d <= 1.0))
            bad_knob("RCSIM_P_SHARE", v, "a fraction from 0 to 1, e.g. 0.75");
        c.p_share = d;
    }

    c.vm = false;
    if (const char *v = env("RCSIM_VM")) {
        if (std::strcmp(v, "0") != 0 && std::strcmp(v, "1") != 0) bad_knob("RCSIM_VM", v, "0 or 1");
        c.vm = *v == '1';
    }
    if (c.vm) c.perf_levels = 1;  // a Virtualization.framework guest: one "Standard" level

    c.numer = 125;
    c.denom = 3;
    if (const char *v = env("RCSIM_TIMEBASE")) {
        unsigned long long n, d;
        const char *p;
        if (!parse_uint(v, UINT32_MAX, &n, &p) || *p != '/' || !parse_uint(p + 1, UINT32_MAX, &d, &p) ||
            *p != '\0' || n == 0 || d == 0)
            bad_knob("RCSIM_TIMEBASE", v, "NUMER/DENOM, both from 1 to 4294967295, e.g. 125/3 or 1/1");
        c.numer = static_cast<uint32_t>(n);
        c.denom = static_cast<uint32_t>(d);
    }

    c.euid = -1;
    if (const char *v = env("RCSIM_EUID")) {
        unsigned long long u;
        const char *p;
        if (!parse_uint(v, UINT32_MAX - 1, &u, &p) || *p != '\0')
            bad_knob("RCSIM_EUID", v, "a uid the caller pretends to have, e.g. 501 (0 = root)");
        c.euid = static_cast<long long>(u);
    }
    return c;
}

__attribute__((constructor)) void load_at_startup() {
    Config c = load();
    std::lock_guard<std::mutex> lock(g_mu);
    g_config = c;
}

uint64_t share_of(uint64_t total, double share) {
    return static_cast<uint64_t>(std::round(static_cast<long double>(total) * share));
}

}  // namespace

Config config() {
    std::lock_guard<std::mutex> lock(g_mu);
    return g_config;
}

bool at_least(const Config &c, int major, int minor) {
    return c.major > major || (c.major == major && c.minor >= minor);
}

uint64_t ns_to_ticks(const Config &c, uint64_t ns) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(ns) * c.denom / c.numer);
}

usage_words total_usage(const Config &c, const CpuTime &t) {
    usage_words u{};
    if (!c.vm) {
        u.cycles = t.total_ns * kCyclesPerNs;
        u.instructions = u.cycles * kInstructionsPerCycle;
    }
    u.user_time_mach = ns_to_ticks(c, t.user_ns);
    u.system_time_mach = ns_to_ticks(c, t.system_ns);
    u.energy_nj = 0;  // kern.pervasive_energy = 0: no DPE counters
    return u;
}

void split_usage(const Config &c, const usage_words &total, usage_words *p, usage_words *e) {
    const uint64_t *t = &total.instructions;
    uint64_t *pw = &p->instructions;
    uint64_t *ew = &e->instructions;
    for (size_t i = 0; i < sizeof total / sizeof(uint64_t); ++i) {
        pw[i] = share_of(t[i], c.p_share);
        ew[i] = t[i] - pw[i];
    }
}

bool may_inspect(const Config &c, bool own_process, unsigned target_euid) {
    const unsigned long long caller = c.euid >= 0 ? static_cast<unsigned long long>(c.euid) : geteuid();
    if (caller == 0) return true;
    return own_process || caller == target_euid;
}

int fail(int err) {
    errno = err;
    return -1;
}

bool copy_out(void *dst, const void *src, size_t n) {
    if (n == 0) return true;
    if (reinterpret_cast<uintptr_t>(dst) < 4096) return false;
    std::memcpy(dst, src, n);
    return true;
}

}  // namespace rcsim

RCSIM_EXPORT void rcsim_reset(void) {
    rcsim::Config c = rcsim::load();
    {
        std::lock_guard<std::mutex> lock(rcsim::g_mu);
        rcsim::g_config = c;
    }
    rcsim::forget_zombies();
}

RCSIM_EXPORT void rcsim_set_euid(long long euid) {
    std::lock_guard<std::mutex> lock(rcsim::g_mu);
    rcsim::g_config.euid = euid < 0 ? -1 : euid;
}
