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
    // The most looked-up events one database keeps: each lookup of a new raw code would
    // otherwise grow a long-lived sampler for good (kp_event_t pointers never move).
    static constexpr size_t kMaxLookedUp = 4096;

    // Adds an event; a later event with the same name does not replace the first.
    const Event *add(Event e);
    // Adds an event built for a name lookup, or returns the one already held for its
    // lookup_key (else its name). Throws KP_ENOMEM when kMaxLookedUp are held.
    const Event *add_looked_up(Event e);
    const Event *find(std::string_view name) const;
    size_t size() const;
    const Event *at(size_t index) const;
    // Up to three listed names close to `name` (edit distance), for "did you mean"
    // messages; none for names longer than kMaxSuggested bytes, which no listed name is near.
    static constexpr size_t kMaxSuggested = 64;
    std::string suggest(std::string_view name) const;

private:
    mutable std::mutex mu_;
    std::deque<Event> events_;
    std::unordered_map<std::string, const Event *> by_name_;
    std::unordered_map<std::string, const Event *> by_lookup_key_;
    size_t looked_up_ = 0;
};

}  // namespace kpc
