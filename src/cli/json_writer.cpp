#include "cli/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace kpc_cli {

void JsonWriter::newline() {
    out_ += '\n';
    out_.append(2 * stack_.size(), ' ');
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (stack_.empty()) return;
    if (!stack_.back().empty) out_ += ',';
    stack_.back().empty = false;
    newline();
}

void JsonWriter::key(std::string_view k) {
    if (!stack_.back().empty) out_ += ',';
    stack_.back().empty = false;
    newline();
    write_string(k);
    out_ += ": ";
    after_key_ = true;
}

void JsonWriter::begin_object() {
    before_value();
    out_ += '{';
    stack_.push_back({true});
}

void JsonWriter::begin_array() {
    before_value();
    out_ += '[';
    stack_.push_back({false});
}

void JsonWriter::end_object() { close('}'); }
void JsonWriter::end_array() { close(']'); }

void JsonWriter::close(char bracket) {
    bool empty = stack_.back().empty;
    stack_.pop_back();
    if (!empty) newline();
    out_ += bracket;
    if (stack_.empty()) out_ += '\n';
}

void JsonWriter::write_string(std::string_view s) {
    out_ += '"';
    for (char ch : s) {
        unsigned char c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out_ += buf;
            } else {
                out_ += ch;
            }
        }
    }
    out_ += '"';
}

void JsonWriter::value(std::string_view s) {
    before_value();
    write_string(s);
}

void JsonWriter::value(const char *s) {
    if (!s) return null();
    value(std::string_view(s));
}

void JsonWriter::value(bool b) {
    before_value();
    out_ += b ? "true" : "false";
}

void JsonWriter::value(int64_t v) {
    before_value();
    out_ += std::to_string(v);
}

void JsonWriter::value(uint64_t v) {
    before_value();
    out_ += std::to_string(v);
}

void JsonWriter::value(double v) {
    if (!std::isfinite(v)) return null();
    before_value();
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
}

void JsonWriter::null() {
    before_value();
    out_ += "null";
}

}  // namespace kpc_cli
