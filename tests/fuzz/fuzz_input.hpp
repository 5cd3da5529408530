// Turns a fuzzer's bytes into the values a target needs: single bytes for choices, and
// newline-separated words for names, paths and arguments (so that seed files stay readable).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace kpc_fuzz {

class FuzzInput {
public:
    FuzzInput(const uint8_t *data, size_t size) : data_(data), size_(size) {}

    bool empty() const { return pos_ >= size_; }

    // The next byte, or 0 once the input is used up.
    uint8_t byte() { return empty() ? 0 : data_[pos_++]; }

    // The bytes up to the next '\n' (consumed, not returned) or the end.
    std::string word() {
        std::string w;
        while (!empty()) {
            char c = static_cast<char>(data_[pos_++]);
            if (c == '\n') break;
            w += c;
        }
        return w;
    }

    // The remaining words, at most `max` of them.
    std::vector<std::string> words(size_t max) {
        std::vector<std::string> out;
        while (!empty() && out.size() < max) out.push_back(word());
        return out;
    }

private:
    const uint8_t *data_;
    size_t size_;
    size_t pos_ = 0;
};

// A failed invariant: print it and abort, which libFuzzer records as a crash with its input.
[[noreturn]] inline void fail(const char *what, const std::string &detail) {
    std::fprintf(stderr, "kpc fuzz: invariant broken: %s (%s)\n", what, detail.c_str());
    std::abort();
}
#define KPC_FUZZ_CHECK(cond, detail) \
    do {                             \
        if (!(cond)) ::kpc_fuzz::fail(#cond, detail); \
    } while (0)

}  // namespace kpc_fuzz
