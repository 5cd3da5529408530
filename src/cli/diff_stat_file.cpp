#include "cli/diff_stat_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "cli/json_reader.hpp"
#include "kpc/event.h"

namespace kpc_cli {

namespace {

constexpr size_t kMaxFileBytes = size_t{64} << 20;
constexpr double kMaxRuns = 1e6;        // kpc stat -r accepts far fewer
constexpr size_t kMaxEvents = 4096;     // the library's own limit per sampler
constexpr size_t kMaxNameBytes = KP_EVENT_NAME_MAX;  // longer event names are refused by the library
constexpr double kMaxValue = 18446744073709551616.0;  // 2^64

using Type = JsonValue::Type;

class Reader {
public:
    explicit Reader(const std::string &path) : path_(path) {}

    [[noreturn]] void fail(const std::string &why) const {
        throw DiffInputError(path_ + ": " + why);
    }

    const JsonValue &member(const JsonValue &object, const char *key, Type type,
                            const std::string &where) const {
        const JsonValue *v = object.find(key);
        if (!v) fail(where + "has no \"" + key + "\"");
        if (!v->is(type))
            fail(where + "\"" + key + "\" is " + json_type_name(v->type()) + ", expected " +
                 json_type_name(type));
        return *v;
    }

    std::string text(const JsonValue &object, const char *key, const std::string &where) const {
        return member(object, key, Type::string, where).string();
    }

    // A non-negative integer that fits a double exactly and is at most `max`.
    size_t count(const JsonValue &object, const char *key, double max, const std::string &where) const {
        double d = member(object, key, Type::number, where).number();
        if (d < 0 || d > max || std::floor(d) != d)
            fail(where + "\"" + key + "\" must be a whole number from 0 to " +
                 std::to_string(static_cast<long long>(max)));
        return static_cast<size_t>(d);
    }

private:
    const std::string &path_;
};

// Event names are printed in kpc diff's table: printable ASCII only, so a hostile file
// cannot put terminal control sequences on the user's screen.
bool printable_name(const std::string &s) {
    if (s.empty() || s.size() > kMaxNameBytes) return false;
    for (unsigned char c : s)
        if (c < 0x20 || c > 0x7e) return false;
    return true;
}

StatResultEvent read_event(const Reader &r, const JsonValue &e, size_t index, size_t runs) {
    std::string where = "event " + std::to_string(index + 1) + " ";
    if (!e.is(Type::object)) r.fail(where + "is " + json_type_name(e.type()) + ", expected an object");
    StatResultEvent ev;
    ev.name = r.text(e, "name", where);
    if (!printable_name(ev.name))
        r.fail(where + "has a name that is empty, longer than " + std::to_string(kMaxNameBytes) +
               " bytes or not printable ASCII");
    where = "event \"" + ev.name + "\" ";
    ev.status = r.text(e, "status", where);
    ev.unit = r.text(e, "unit", where);
    if (ev.unit != "" && ev.unit != "ns") r.fail(where + "has unknown unit \"" + ev.unit + "\"");
    if (ev.status == "not_supported" || ev.status == "not_counted") return ev;
    if (ev.status != "counted")
        r.fail(where + "has unknown status \"" + ev.status +
               "\" (expected counted, not_supported or not_counted)");
    const JsonValue &value = r.member(e, "value", Type::object, where);
    const JsonValue &values = r.member(value, "values", Type::array, where + "value ");
    if (values.array().size() != runs)
        r.fail(where + "has " + std::to_string(values.array().size()) + " values for " +
               std::to_string(runs) + " runs");
    for (const JsonValue &v : values.array()) {
        // Counts are 64-bit; the bound also keeps sums of a million runs finite.
        if (!v.is(Type::number) || v.number() < 0 || v.number() > kMaxValue)
            r.fail(where + "has a value that is not a count (a number from 0 to 2^64)");
        ev.values.push_back(v.number());
    }
    return ev;
}

}  // namespace

StatResultFile parse_stat_result(const std::string &text, const std::string &path) {
    Reader r(path);
    JsonValue doc;
    try {
        doc = parse_json(text);
    } catch (const JsonError &e) {
        r.fail(std::string("not valid JSON: ") + e.what());
    }
    if (!doc.is(Type::object)) r.fail("not a kpc stat --json result (the document is not an object)");
    const JsonValue *schema = doc.find("schema");
    if (!schema || !schema->is(Type::string))
        r.fail("not a kpc stat --json result (no \"schema\"); make it with kpc stat -r N --json -o FILE");
    if (schema->string() != "kpc-stat/1")
        r.fail("schema \"" + (printable_name(schema->string()) ? schema->string() : "?") +
               "\" is not kpc-stat/1, the only one this kpc reads; make both files with this kpc");

    StatResultFile f;
    f.path = path;
    f.backend = r.text(doc, "backend", "");
    f.scope = r.text(doc, "scope", "");
    const JsonValue &cpu = r.member(doc, "cpu", Type::object, "");
    f.cpu_id = r.text(cpu, "id", "cpu ");
    for (const JsonValue &w : r.member(doc, "command", Type::array, "").array()) {
        if (!w.is(Type::string)) r.fail("\"command\" holds something other than strings");
        f.command.push_back(w.string());
    }
    f.runs = r.count(doc, "runs", kMaxRuns, "");
    f.interrupted = r.member(doc, "interrupted", Type::boolean, "").boolean();
    const JsonValue &events = r.member(doc, "events", Type::array, "");
    if (events.array().size() > kMaxEvents)
        r.fail("more than " + std::to_string(kMaxEvents) + " events");
    for (size_t i = 0; i < events.array().size(); ++i)
        f.events.push_back(read_event(r, events.array()[i], i, f.runs));
    return f;
}

StatResultFile read_stat_result_file(const std::string &path) {
    std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!file) throw DiffInputError(path + ": cannot open: " + std::strerror(errno));
    std::string text;
    char buffer[65536];
    for (;;) {
        size_t n = std::fread(buffer, 1, sizeof buffer, file.get());
        text.append(buffer, n);
        if (text.size() > kMaxFileBytes)
            throw DiffInputError(path + ": larger than 64 MiB; not a kpc stat --json result");
        if (n < sizeof buffer) break;
    }
    if (std::ferror(file.get())) throw DiffInputError(path + ": cannot read: " + std::strerror(errno));
    return parse_stat_result(text, path);
}

}  // namespace kpc_cli
