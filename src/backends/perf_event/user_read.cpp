#include "backends/perf_event/user_read.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "core/error.hpp"

namespace kpc::perf {

std::string UserPages::map(const std::vector<int> &fds, const std::vector<std::string> &event_names) {
    unmap();
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    pages_.reserve(fds.size());
    for (size_t i = 0; i < fds.size(); ++i) {
        // The first page alone: the control page, without a sample ring buffer.
        void *p = mmap(nullptr, page, PROT_READ, MAP_SHARED, fds[i], 0);
        if (p == MAP_FAILED) {
            int err = errno;
            unmap();
            return "event '" + event_names[i] + "': mmap of its perf_event page failed " +
                   errno_text(err);
        }
        pages_.push_back(static_cast<const volatile perf_event_mmap_page *>(p));
    }
    return "";
}

void UserPages::unmap() noexcept {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    for (const volatile perf_event_mmap_page *p : pages_)
        munmap(const_cast<perf_event_mmap_page *>(p), page);
    pages_.clear();
}

}  // namespace kpc::perf
