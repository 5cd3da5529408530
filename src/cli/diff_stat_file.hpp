// Reading back a `kpc stat --json` result (schema kpc-stat/1) for `kpc diff`. The file is
// untrusted: anything missing, mistyped or inconsistent is a DiffInputError that names the
// file, the field and what kpc expected; nothing is guessed.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace kpc_cli {

class DiffInputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct StatResultEvent {
    std::string name;     // as given to kpc stat -e
    std::string status;   // "counted", "not_supported", "not_counted"
    std::string unit;     // "" (a count) or "ns"
    std::vector<double> values;  // one per run; empty unless counted
};

struct StatResultFile {
    std::string path;
    std::string backend;
    std::string scope;
    std::string cpu_id;
    std::vector<std::string> command;
    size_t runs = 0;
    bool interrupted = false;
    std::vector<StatResultEvent> events;
};

// Read and check the file at `path` (at most 64 MiB). Throws DiffInputError.
StatResultFile read_stat_result_file(const std::string &path);

// The same from text already in memory (`path` is only used in messages).
StatResultFile parse_stat_result(const std::string &text, const std::string &path);

}  // namespace kpc_cli
