#include "cli/stdout_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/cli_error.hpp"

namespace kpc_cli {
namespace {

[[noreturn]] void stdout_failed(int err) {
    std::string cause = err ? std::strerror(err) : "the data was not written";
    throw CliError("cannot write to standard output: " + cause +
                       " (check the file, pipe or terminal stdout goes to)",
                   kExitError);
}

}  // namespace

void guard_standard_streams() noexcept {
    for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0 && null_fd != fd) {
            dup2(null_fd, fd);
            close(null_fd);
        }
    }
}

void write_stdout(const std::string &text) {
    errno = 0;
    if (std::fputs(text.c_str(), stdout) < 0 || std::fflush(stdout) != 0) stdout_failed(errno);
}

void check_stdout() {
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) stdout_failed(errno);
}

}  // namespace kpc_cli
