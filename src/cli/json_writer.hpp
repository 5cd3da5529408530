// A small streaming JSON writer for kpc's --json output: pretty-printed, UTF-8 strings
// passed through, control characters escaped, non-finite numbers written as null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpc_cli {

class JsonWriter {
public:
    explicit JsonWriter(std::string &out) : out_(out) {}

    void begin_object();
    void end_object();
    void begin_array();
    void end_array();
    // Inside an object: the key of the next value.
    void key(std::string_view k);

    void value(std::string_view s);
    void value(const char *s);  // NULL is written as null
    void value(bool b);
    void value(int v) { value(static_cast<int64_t>(v)); }
    void value(int64_t v);
    void value(uint64_t v);
    void value(double v);  // shortest round-trip form; NaN and infinities as null
    void null();
    // Its value, or null when empty.
    template <typename T>
    void value(const std::optional<T> &v) {
        if (v)
            value(*v);
        else
            null();
    }

    // key(k) followed by value(v).
    template <typename T>
    void field(std::string_view k, T v) {
        key(k);
        value(v);
    }
    // key(k) followed by v when has, else null.
    template <typename T>
    void field_or_null(std::string_view k, bool has, const T &v) {
        key(k);
        if (has)
            value(v);
        else
            null();
    }

private:
    struct Level {
        bool object;
        bool empty = true;
    };
    void before_value();
    void close(char bracket);  // end_object, end_array
    void newline();
    void write_string(std::string_view s);

    std::string &out_;
    std::vector<Level> stack_;
    bool after_key_ = false;
};

}  // namespace kpc_cli
