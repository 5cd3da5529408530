#include "cli/text_format.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace kpc_cli {
namespace {

// "1234567" -> "1,234,567": a comma before every digit followed by a multiple of three.
std::string group_digits(const std::string &digits) {
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace

std::string format(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list copy;
    va_copy(copy, ap);
    int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    std::string s(n > 0 ? static_cast<size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(&s[0], s.size() + 1, fmt, ap);
    va_end(ap);
    return s;
}

std::string group_thousands(uint64_t v) {
    return group_digits(std::to_string(v));
}

std::string group_thousands(double v, int decimals) {
    if (!std::isfinite(v)) return format("%f", v);
    std::string fixed = format("%.*f", decimals, std::fabs(v));
    size_t dot = fixed.find('.');
    std::string whole = fixed.substr(0, dot);
    std::string frac = dot == std::string::npos ? "" : fixed.substr(dot);
    return (std::signbit(v) && v != 0 ? "-" : "") + group_digits(whole) + frac;
}

std::string pad_left(const std::string &s, size_t width) {
    return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string pad_right(const std::string &s, size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string join_words(const std::vector<std::string> &words, const char *sep) {
    std::string out;
    for (size_t i = 0; i < words.size(); ++i) {
        if (i) out += sep;
        out += words[i];
    }
    return out;
}

}  // namespace kpc_cli
