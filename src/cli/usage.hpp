// Help texts of kpc and its commands (docs/cli.md repeats them).
#pragma once

#include <string>

namespace kpc_cli {

// Usage of `topic`: "" for kpc itself, or "info", "list", "stat".
const char *usage_text(const std::string &topic);

}  // namespace kpc_cli
