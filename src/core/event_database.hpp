// The sampler's event database: every listable event plus those materialised on lookup
// (raw "r<hex>" codes, libpfm4 names). Append-only, so kp_event_t pointers stay valid.
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/event.hpp"

namespace kpc {

class EventDatabase {
public:
    // Adds an event; a later event with the same name does not replace the first.
    const Event *add(Event e);
    const Event *find(std::string_view name) const;
    size_t size() const;
    const Event *at(size_t index) const;
    // Up to three names close to `name` (edit distance), for "did you mean" messages.
    std::string suggest(std::string_view name) const;

private:
    mutable std::mutex mu_;
    std::deque<Event> events_;
    std::unordered_map<std::string, const Event *> by_name_;
};

}  // namespace kpc
