#include "core/event_modifiers.hpp"

namespace kpc {

bool parse_event_modifiers(std::string_view name, EventModifiers &out) {
    size_t colon = name.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    std::string_view mods = name.substr(colon + 1);
    if (mods.empty() || mods.size() > 2) return false;
    EventModifiers m;
    m.base = name.substr(0, colon);
    for (char c : mods) {
        if (c == 'u' && !m.user)
            m.user = true;
        else if (c == 'k' && !m.kernel)
            m.kernel = true;
        else
            return false;
    }
    out = m;
    return true;
}

}  // namespace kpc
