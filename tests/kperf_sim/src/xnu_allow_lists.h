// The secure-CPC allow-lists of a release macOS kernel (xnu_allow_lists.cpp).
#ifndef KPSIM_XNU_ALLOW_LISTS_H
#define KPSIM_XNU_ALLOW_LISTS_H

#include <cstddef>
#include <cstdint>

namespace kpsim {

struct XnuAllowList {
    const char *board;  // ARM64_BOARD_CONFIG_<board>: "T8103" (M1), "T8132" (M4), ...
    const uint16_t *selectors;
    size_t count;
};
extern const XnuAllowList kXnuAllowLists[];
extern const size_t kXnuAllowListCount;

}  // namespace kpsim

#endif  // KPSIM_XNU_ALLOW_LISTS_H
