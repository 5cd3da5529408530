// A strict JSON reader (RFC 8259) for files kpc reads back, such as `kpc stat --json`
// results given to `kpc diff`. Its input is untrusted: it never crashes, bounds the size,
// the nesting depth and the number of values, rejects duplicate keys, and every error names
// the line and column.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kpc_cli {

// Thrown for input that is not acceptable JSON; what() is "line L, column C: <why>".
class JsonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct JsonLimits {
    size_t max_bytes = size_t{64} << 20;  // whole document
    size_t max_depth = 64;                // nested arrays and objects
    size_t max_values = size_t{4} << 20;  // values in the document
};

class JsonValue {
public:
    enum class Type { null, boolean, number, string, array, object };
    using Member = std::pair<std::string, JsonValue>;

    Type type() const { return type_; }
    bool is(Type t) const { return type_ == t; }

    // Each accessor requires the matching type (callers check type() first).
    bool boolean() const { return boolean_; }
    double number() const { return number_; }
    const std::string &string() const { return string_; }
    const std::vector<JsonValue> &array() const { return array_; }
    const std::vector<Member> &object() const { return object_; }

    // The member called `key` of an object, or nullptr when absent (or not an object).
    const JsonValue *find(std::string_view key) const;

private:
    friend class JsonParser;
    Type type_ = Type::null;
    bool boolean_ = false;
    double number_ = 0;
    std::string string_;
    std::vector<JsonValue> array_;
    std::vector<Member> object_;
};

// "null", "boolean", ... for messages.
const char *json_type_name(JsonValue::Type t);

// Parse one JSON document (surrounding whitespace allowed, nothing else). Throws JsonError.
JsonValue parse_json(std::string_view text, const JsonLimits &limits = {});

}  // namespace kpc_cli
