#include "backends/apple/macos_version.hpp"

#include <cstdio>

namespace kpc::apple {
namespace {

// Leading "<int>.<int>" of s; false if it does not start that way.
bool two_numbers(std::string_view s, int &a, int &b) {
    a = b = 0;
    size_t i = 0;
    auto number = [&](int &out) {
        size_t start = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 4) out = out * 10 + (s[i++] - '0');
        return i > start;
    };
    if (!number(a)) return false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (!number(b)) return false;
    } else if (i != s.size()) {
        return false;
    }
    return true;
}

}  // namespace

std::string MacosVersion::text() const {
    if (!known()) return "unknown";
    char b[32];
    std::snprintf(b, sizeof b, "%d.%d", major, minor);
    return b;
}

MacosVersion parse_product_version(std::string_view s) {
    MacosVersion v;
    int a = 0, b = 0;
    if (two_numbers(s, a, b) && a >= 10) v.major = a, v.minor = b;
    return v;
}

MacosVersion from_darwin_release(std::string_view s) {
    MacosVersion v;
    int darwin = 0, minor = 0;
    if (!two_numbers(s, darwin, minor) || darwin < 20) return v;  // 20 = macOS 11
    v.major = darwin - 9;
    v.minor = (darwin == 21 || darwin == 22) && minor > 0 ? minor - 1 : minor;
    return v;
}

bool has_recount_kinds(const MacosVersion &v) { return v.at_least(kRecountMajor, kRecountMinor); }

bool efficiency_entry_first(const MacosVersion &v) { return !v.at_least(14, 2); }

}  // namespace kpc::apple
