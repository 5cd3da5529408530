// Placeholder until the kperf backend lands.
#include "core/backend.hpp"
#include "core/error.hpp"

namespace kpc {
std::unique_ptr<Backend> make_kperf_backend(const std::string &, const std::string &) {
    fail(KP_EUNSUPPORTED, "the kperf backend is not built yet");
}
}  // namespace kpc
