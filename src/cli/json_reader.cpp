#include "cli/json_reader.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <unordered_set>

namespace kpc_cli {

const JsonValue *JsonValue::find(std::string_view key) const {
    if (type_ != Type::object) return nullptr;
    for (const Member &m : object_)
        if (m.first == key) return &m.second;
    return nullptr;
}

const char *json_type_name(JsonValue::Type t) {
    switch (t) {
    case JsonValue::Type::null: return "null";
    case JsonValue::Type::boolean: return "a boolean";
    case JsonValue::Type::number: return "a number";
    case JsonValue::Type::string: return "a string";
    case JsonValue::Type::array: return "an array";
    case JsonValue::Type::object: return "an object";
    }
    return "?";
}

// Recursive descent over the whole text; depth is bounded, so is the recursion.
class JsonParser {
public:
    JsonParser(std::string_view text, const JsonLimits &limits) : s_(text), limits_(limits) {}

    JsonValue document() {
        if (s_.size() > limits_.max_bytes)
            fail_at(0, "document larger than " + std::to_string(limits_.max_bytes) + " bytes");
        skip_space();
        JsonValue v = value(0);
        skip_space();
        if (pos_ != s_.size()) fail("unexpected text after the JSON value");
        return v;
    }

private:
    [[noreturn]] void fail_at(size_t at, const std::string &why) const {
        size_t line = 1, column = 1;
        for (size_t i = 0; i < at && i < s_.size(); ++i) {
            if (s_[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        throw JsonError("line " + std::to_string(line) + ", column " + std::to_string(column) +
                        ": " + why);
    }
    // At the end of the text every complaint means the same thing: the file was cut short.
    [[noreturn]] void fail(const std::string &why) const {
        fail_at(pos_, at_end() ? "unexpected end of input (truncated file?)" : why);
    }

    bool at_end() const { return pos_ >= s_.size(); }
    char peek() const { return at_end() ? '\0' : s_[pos_]; }
    // Steps over `c` when it comes next.
    bool eat(char c) {
        if (peek() != c) return false;
        ++pos_;
        return true;
    }

    void skip_space() {
        while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
            ++pos_;
    }

    void expect_word(std::string_view word) {
        if (s_.substr(pos_, word.size()) != word) fail("invalid literal");
        pos_ += word.size();
    }

    JsonValue value(size_t depth) {
        if (++values_ > limits_.max_values)
            fail("more than " + std::to_string(limits_.max_values) + " values");
        JsonValue v;
        if (at_end()) fail("unexpected end of input (truncated file?)");
        char c = peek();
        if (c == '{' || c == '[') {
            if (depth >= limits_.max_depth)
                fail("nested deeper than " + std::to_string(limits_.max_depth) + " levels");
            if (c == '{')
                object(v, depth + 1);
            else
                array(v, depth + 1);
        } else if (c == '"') {
            v.type_ = JsonValue::Type::string;
            v.string_ = string();
        } else if (c == 't') {
            expect_word("true");
            v.type_ = JsonValue::Type::boolean;
            v.boolean_ = true;
        } else if (c == 'f') {
            expect_word("false");
            v.type_ = JsonValue::Type::boolean;
        } else if (c == 'n') {
            expect_word("null");
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v.type_ = JsonValue::Type::number;
            v.number_ = number();
        } else {
            fail(std::string("unexpected character '") + (c >= 0x20 && c < 0x7f ? std::string(1, c) : "?") + "'");
        }
        return v;
    }

    void object(JsonValue &v, size_t depth) {
        v.type_ = JsonValue::Type::object;
        ++pos_;  // {
        skip_space();
        if (eat('}')) return;
        std::unordered_set<std::string> keys;  // a hostile file may hold millions of keys
        for (;;) {
            skip_space();
            if (peek() != '"') fail("expected a string key");
            size_t key_at = pos_;
            std::string key = string();
            if (!keys.insert(key).second) fail_at(key_at, "duplicate key \"" + key + "\"");
            skip_space();
            if (!eat(':')) fail("expected ':' after a key");
            skip_space();
            JsonValue member = value(depth);
            v.object_.emplace_back(std::move(key), std::move(member));
            skip_space();
            if (eat(',')) continue;
            if (eat('}')) return;
            fail(at_end() ? "unexpected end of input inside an object" : "expected ',' or '}'");
        }
    }

    void array(JsonValue &v, size_t depth) {
        v.type_ = JsonValue::Type::array;
        ++pos_;  // [
        skip_space();
        if (eat(']')) return;
        for (;;) {
            skip_space();
            v.array_.push_back(value(depth));
            skip_space();
            if (eat(',')) continue;
            if (eat(']')) return;
            fail(at_end() ? "unexpected end of input inside an array" : "expected ',' or ']'");
        }
    }

    unsigned hex4() {
        if (s_.size() - pos_ < 4) fail("truncated \\u escape");
        unsigned u = 0;
        for (int i = 0; i < 4; ++i) {
            char c = s_[pos_++];
            u <<= 4;
            if (c >= '0' && c <= '9') u |= unsigned(c - '0');
            else if (c >= 'a' && c <= 'f') u |= unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') u |= unsigned(c - 'A' + 10);
            else fail("bad hex digit in a \\u escape");
        }
        return u;
    }

    static void append_utf8(std::string &out, unsigned cp) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    // Length of the valid UTF-8 sequence at pos_ (first byte >= 0x80), or 0.
    size_t utf8_length() const {
        auto byte = [&](size_t i) { return static_cast<unsigned char>(s_[pos_ + i]); };
        unsigned char b0 = byte(0);
        size_t n = b0 >= 0xF0 && b0 <= 0xF4 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 && b0 <= 0xDF ? 2 : 0;
        if (n == 0 || s_.size() - pos_ < n) return 0;
        for (size_t i = 1; i < n; ++i)
            if ((byte(i) & 0xC0) != 0x80) return 0;
        unsigned char b1 = byte(1);
        if (b0 == 0xE0 && b1 < 0xA0) return 0;   // overlong
        if (b0 == 0xED && b1 >= 0xA0) return 0;  // surrogate
        if (b0 == 0xF0 && b1 < 0x90) return 0;   // overlong
        if (b0 == 0xF4 && b1 >= 0x90) return 0;  // above U+10FFFF
        return n;
    }

    std::string string() {
        ++pos_;  // opening quote
        std::string out;
        for (;;) {
            if (at_end()) fail("unexpected end of input inside a string");
            unsigned char c = static_cast<unsigned char>(s_[pos_]);
            if (c == '"') {
                ++pos_;
                return out;
            }
            if (c < 0x20) fail("control character inside a string");
            if (c >= 0x80) {
                size_t n = utf8_length();
                if (n == 0) fail("invalid UTF-8 in a string");
                out.append(s_.substr(pos_, n));
                pos_ += n;
                continue;
            }
            ++pos_;
            if (c != '\\') {
                out += char(c);
                continue;
            }
            if (at_end()) fail("unexpected end of input inside a string");
            char e = s_[pos_++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (s_.substr(pos_, 2) != "\\u") fail("unpaired surrogate in a \\u escape");
                    pos_ += 2;
                    unsigned low = hex4();
                    if (low < 0xDC00 || low > 0xDFFF) fail("unpaired surrogate in a \\u escape");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    fail("unpaired surrogate in a \\u escape");
                }
                append_utf8(out, cp);
                break;
            }
            default: fail("invalid escape in a string");
            }
        }
    }

    static bool digit(char c) { return c >= '0' && c <= '9'; }

    double number() {
        size_t start = pos_;
        if (peek() == '-') ++pos_;
        if (peek() == '0') {
            ++pos_;
        } else if (digit(peek())) {
            while (digit(peek())) ++pos_;
        } else {
            fail("invalid number");
        }
        if (peek() == '.') {
            ++pos_;
            if (!digit(peek())) fail("invalid number: no digit after '.'");
            while (digit(peek())) ++pos_;
        }
        if (peek() == 'e' || peek() == 'E') {
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!digit(peek())) fail("invalid number: no digit in the exponent");
            while (digit(peek())) ++pos_;
        }
        // The grammar is checked above, so strtod reads exactly this text ("C" locale: kpc
        // never calls setlocale).
        std::string text(s_.substr(start, pos_ - start));
        errno = 0;
        double d = std::strtod(text.c_str(), nullptr);
        if (!std::isfinite(d)) fail_at(start, "number out of range");
        return d;
    }

    std::string_view s_;
    JsonLimits limits_;
    size_t pos_ = 0;
    size_t values_ = 0;
};

JsonValue parse_json(std::string_view text, const JsonLimits &limits) {
    return JsonParser(text, limits).document();
}

}  // namespace kpc_cli
