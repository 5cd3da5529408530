#include "cli/args.hpp"

#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "cli/cli_error.hpp"

namespace kpc_cli {
namespace {

constexpr int kMaxRepeat = 100000;

const char *command_name(Command c) {
    switch (c) {
    case Command::info: return "info";
    case Command::list: return "list";
    case Command::stat: return "stat";
    case Command::check: return "check";
    case Command::diff: return "diff";
    default: return "";
    }
}

std::optional<Command> command_from(std::string_view word) {
    if (word == "info") return Command::info;
    if (word == "list") return Command::list;
    if (word == "stat") return Command::stat;
    if (word == "check") return Command::check;
    if (word == "diff") return Command::diff;
    if (word == "help") return Command::help;
    return std::nullopt;
}

kp_backend_t parse_backend(const std::string &v, const std::string &topic) {
    if (v == "auto") return KP_BACKEND_AUTO;
    if (v == "kperf") return KP_BACKEND_KPERF;
    if (v == "perf_event") return KP_BACKEND_PERF_EVENT;
    if (v == "recount") return KP_BACKEND_RECOUNT;
    throw UsageError("--backend '" + v + "' is not a backend; use auto, kperf, perf_event or recount",
                     topic);
}

int parse_repeat(const std::string &v, const std::string &topic) {
    errno = 0;
    char *end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno != 0 || n < 1 || n > kMaxRepeat)
        throw UsageError("-r '" + v + "' is not a run count; give a whole number from 1 to " +
                             std::to_string(kMaxRepeat),
                         topic);
    return static_cast<int>(n);
}

// A percentage from 0 to 1e6, with or without a trailing '%'.
double parse_percent(std::string v, const std::string &option, const std::string &topic) {
    std::string shown = v;
    if (!v.empty() && v.back() == '%') v.pop_back();
    errno = 0;
    char *end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || errno != 0 || !(d >= 0 && d <= 1e6))
        throw UsageError(option + " '" + shown + "' is not a percentage; give a number such as 2 or 0.5%",
                         topic);
    return d;
}

// --fail-above PCT or --fail-above EVENT=PCT.
std::pair<std::string, double> parse_fail_above(const std::string &v, const std::string &topic) {
    size_t eq = v.rfind('=');
    if (eq == std::string::npos) return {"", parse_percent(v, "--fail-above", topic)};
    if (eq == 0) throw UsageError("--fail-above '" + v + "' has no event name before '='", topic);
    return {v.substr(0, eq), parse_percent(v.substr(eq + 1), "--fail-above", topic)};
}

double parse_alpha(const std::string &v, const std::string &topic) {
    errno = 0;
    char *end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || errno != 0 || !(d > 0 && d < 1))
        throw UsageError("--alpha '" + v + "' is not a significance level; give a number between 0 and 1, e.g. 0.01",
                         topic);
    return d;
}

// Walks argv, handing out options and their values in the forms -x V, -xV, --long V, --long=V.
class Cursor {
public:
    Cursor(int argc, const char *const *argv) : argc_(argc), argv_(argv) {}
    bool done() const { return i_ >= argc_; }
    std::string peek() const { return argv_[i_]; }
    std::string next() { return argv_[i_++]; }

    // If the current word is option `short_name`/`long_name` (either may be empty) taking a
    // value, consume it and its value into `value` and return true.
    bool take_valued(const char *short_name, const char *long_name, std::string &value,
                     const std::string &topic) {
        std::string w = peek();
        std::string shown;
        if (*long_name && w == long_name) {
            shown = long_name;
        } else if (*long_name && w.rfind(std::string(long_name) + "=", 0) == 0) {
            value = w.substr(std::string(long_name).size() + 1);
            ++i_;
            return true;
        } else if (*short_name && w == short_name) {
            shown = short_name;
        } else if (*short_name && w.size() > 2 && w.rfind(short_name, 0) == 0) {
            value = w.substr(2);
            ++i_;
            return true;
        } else {
            return false;
        }
        ++i_;
        if (done()) throw UsageError("option " + shown + " needs a value", topic);
        value = next();
        return true;
    }

private:
    int argc_;
    const char *const *argv_;
    int i_ = 1;
};

bool is_help(const std::string &w) { return w == "-h" || w == "--help"; }

std::string parse_separator(const std::string &v, const std::string &topic) {
    if (v.empty()) throw UsageError("-x needs a separator, e.g. -x , or -x ';'", topic);
    if (v.find('\n') != std::string::npos)
        throw UsageError("-x separator may not contain a newline; each event is one line", topic);
    return v;
}

}  // namespace

void add_event_list(const std::string &list, std::vector<std::string> &names,
                    std::vector<int> &groups, int &next_group, const std::string &topic) {
    auto bad = [&](const std::string &why) { return UsageError("-e '" + list + "' " + why, topic); };
    std::string name;
    int group = -1;            // the open group's number; -1 outside braces
    bool group_empty = false;  // the open group has no event yet
    bool closed = false;       // a group just closed: only ',' or the end may follow
    auto end_name = [&] {
        if (name.empty()) throw bad("has an empty event name; separate names with single commas");
        names.push_back(name);
        groups.push_back(group);
        name.clear();
        group_empty = false;
    };
    for (size_t i = 0; i < list.size(); ++i) {
        const char ch = list[i];
        if (closed) {
            if (ch != ',')
                throw bad("has '" + std::string(1, ch) +
                          "' after a group's '}'; a group ends at ',' or at the end of the list "
                          "(kpc takes no modifiers after a group)");
            closed = false;
            if (i + 1 == list.size()) end_name();  // "{a}," ends in an empty name
            continue;
        }
        if (ch == '{') {
            if (group >= 0)
                throw bad("has a group inside a group; groups cannot be nested: write {a,b},{c,d}");
            if (!name.empty())
                throw bad("has '{' inside the event name '" + name +
                          "'; a group starts before its first event, e.g. {cycles,instructions}");
            group = next_group++;
            group_empty = true;
        } else if (ch == '}') {
            if (group < 0) throw bad("has a '}' without a '{' before it");
            if (group_empty && name.empty())
                throw bad("has an empty group {}; put the events to count together in it, e.g. "
                          "{cycles,instructions}");
            end_name();
            group = -1;
            closed = true;
        } else if (ch == ',') {
            end_name();
        } else {
            name += ch;
        }
    }
    if (group >= 0)
        throw bad("has a '{' without its closing '}'; close each group within the same -e value");
    if (!closed) end_name();
}

void parse_pids(const std::string &list, std::vector<int> &pids, const std::string &topic) {
    size_t start = 0;
    while (start <= list.size()) {
        size_t comma = list.find(',', start);
        std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        char *end = nullptr;
        errno = 0;
        long v = item.empty() ? 0 : std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || errno != 0 || v <= 0 || v > 0x7fffffff)
            throw UsageError("-p needs process ids (positive numbers, comma-separated), not '" + item + "'",
                             topic);
        pids.push_back(static_cast<int>(v));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
}

int parse_interval(const std::string &text, const std::string &topic) {
    char *end = nullptr;
    errno = 0;
    long v = text.empty() ? 0 : std::strtol(text.c_str(), &end, 10);
    // perf's own floor: shorter intervals cost more than they show.
    if (text.empty() || *end != '\0' || errno != 0 || v < 10 || v > 86400000)
        throw UsageError("-I needs milliseconds between 10 and 86400000, not '" + text + "'", topic);
    return static_cast<int>(v);
}

const std::vector<std::string> &default_stat_events() {
    static const std::vector<std::string> events = {
        "task-clock", "context-switches", "cpu-migrations", "page-faults",
        "cycles",     "instructions",     "branches",       "branch-misses"};
    return events;
}

Options parse_args(int argc, const char *const *argv) {
    Options o;
    Cursor c(argc, argv);
    std::string value;
    int next_group = 0;  // the number the next {group} in -e gets

    // Options before the command word.
    std::optional<Command> command;
    while (!command) {
        if (c.done()) throw UsageError("no command given", "");
        if (is_help(c.peek())) {
            o.command = Command::help;
            return o;
        }
        if (c.peek() == "-V" || c.peek() == "--version") {
            o.command = Command::version;
            return o;
        }
        if (c.take_valued("", "--backend", value, "")) {
            o.backend = parse_backend(value, "");
            continue;
        }
        std::string word = c.next();
        if (!word.empty() && word[0] == '-') throw UsageError("unknown option '" + word + "'", "");
        command = command_from(word);
        if (!command) throw UsageError("unknown command '" + word + "'", "");
    }

    if (*command == Command::help) {
        o.command = Command::help;
        if (!c.done()) {
            std::string topic = c.next();
            std::optional<Command> t = command_from(topic);
            if (!t || *t == Command::help) throw UsageError("no help for '" + topic + "'", "");
            o.help_topic = command_name(*t);
        }
        if (!c.done()) throw UsageError("unexpected argument '" + c.peek() + "'", "");
        return o;
    }

    o.command = *command;
    const std::string topic = command_name(*command);
    const bool is_stat = *command == Command::stat;
    const bool is_diff = *command == Command::diff;
    while (!c.done()) {
        std::string w = c.peek();
        if (is_help(w)) {
            o.command = Command::help;
            o.help_topic = topic;
            return o;
        }
        if (w == "--json" || w == "-j") {
            c.next();
            o.json = true;
        } else if (c.take_valued("", "--backend", value, topic)) {
            o.backend = parse_backend(value, topic);
        } else if (is_stat && c.take_valued("-e", "--event", value, topic)) {
            add_event_list(value, o.events, o.event_groups, next_group, topic);
        } else if (is_stat && c.take_valued("-r", "--repeat", value, topic)) {
            o.repeat = parse_repeat(value, topic);
        } else if (is_stat && c.take_valued("-o", "--output", value, topic)) {
            if (value.empty()) throw UsageError("-o needs a file name", topic);
            o.output_path = value;
        } else if (is_stat && c.take_valued("-p", "--pid", value, topic)) {
            parse_pids(value, o.pids, topic);
        } else if (is_stat && c.take_valued("-I", "--interval-print", value, topic)) {
            o.interval_ms = parse_interval(value, topic);
        } else if (is_stat && (w == "-a" || w == "--all-cpus")) {
            c.next();
            o.all_cpus = true;
        } else if (is_stat && w == "--per-thread") {
            c.next();
            o.per_thread = true;
        } else if (is_stat && c.take_valued("-x", "--field-separator", value, topic)) {
            o.csv_separator = parse_separator(value, topic);
        } else if (is_diff && c.take_valued("", "--fail-above", value, topic)) {
            o.fail_above.push_back(parse_fail_above(value, topic));
        } else if (is_diff && c.take_valued("", "--alpha", value, topic)) {
            o.alpha = parse_alpha(value, topic);
        } else if (*command == Command::check && w == "--quick") {
            c.next();
            o.quick = true;
        } else if (is_stat && w == "--") {
            c.next();
            break;
        } else if (!w.empty() && w[0] == '-') {
            throw UsageError("unknown option '" + w + "' for kpc " + topic, topic);
        } else if (is_stat) {
            break;  // the command to run starts here
        } else if (is_diff) {
            o.diff_files.push_back(c.next());
        } else {
            throw UsageError("unexpected argument '" + w + "' for kpc " + topic, topic);
        }
    }
    if (is_stat) {
        while (!c.done()) o.child_argv.push_back(c.next());
        if (o.interval_ms && o.repeat != 1)
            throw UsageError("-I prints one run's intervals; it cannot be combined with -r", topic);
        if (!o.pids.empty() && o.repeat != 1)
            throw UsageError("-r repeats a command; it cannot repeat -p (a process runs once)", topic);
        if (o.all_cpus && !o.pids.empty())
            throw UsageError("-a counts every CPU and -p given processes; give one of them", topic);
        if (o.per_thread && o.pids.empty())
            throw UsageError("--per-thread shows the threads of the processes given with -p "
                             "(a command's threads all descend from its first one); add -p PID",
                             topic);
        if (o.per_thread && o.interval_ms)
            throw UsageError("--per-thread prints each thread's totals at the end; it cannot be "
                             "combined with -I", topic);
        if (o.child_argv.empty() && o.pids.empty() && !o.all_cpus)
            throw UsageError("kpc stat needs a command to run, e.g. kpc stat -- ls, -p PID, or -a "
                             "(every CPU until Ctrl-C)", topic);
        if (o.all_cpus && o.child_argv.empty() && o.repeat != 1)
            throw UsageError("-r repeats a command; -a without one counts until Ctrl-C, once", topic);
        if (o.events.empty()) {
            o.events = default_stat_events();
            o.event_groups.assign(o.events.size(), -1);
        }
        if (o.csv_separator && o.json)
            throw UsageError("-x (CSV) and --json each choose the report's format; give one of them",
                             topic);
    }
    if (is_diff && o.diff_files.size() != 2)
        throw UsageError("kpc diff needs two files, e.g. kpc diff base.json new.json (got " +
                             std::to_string(o.diff_files.size()) + ")",
                         topic);
    return o;
}

}  // namespace kpc_cli
