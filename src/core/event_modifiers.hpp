// perf's event modifiers: "instructions:u" counts user mode only, ":k" kernel mode only,
// ":uk" (or ":ku") both. Parsed here; each backend says which it can honour.
#pragma once

#include <string>
#include <string_view>

namespace kpc {

struct EventModifiers {
    std::string_view base;  // the event name without ":..."
    bool user = false;      // 'u' given
    bool kernel = false;    // 'k' given
};

// True and `out` filled when `name` ends in ":" followed by one or two of u, k (each at
// most once); false for any other name, which is then looked up whole.
bool parse_event_modifiers(std::string_view name, EventModifiers &out);

}  // namespace kpc
