// Number and column formatting for kpc's human-readable output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kpc_cli {

// printf into a std::string.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// 1234567 -> "1,234,567".
std::string group_thousands(uint64_t v);

// 1234.5678 with 2 decimals -> "1,234.57". Negative values keep their sign.
std::string group_thousands(double v, int decimals);

// Pad with spaces to `width` columns (no truncation): text on the right / on the left.
std::string pad_left(const std::string &s, size_t width);
std::string pad_right(const std::string &s, size_t width);

// The words of a command joined by spaces, as perf stat shows them.
std::string join_words(const std::vector<std::string> &words, const char *sep = " ");

}  // namespace kpc_cli
