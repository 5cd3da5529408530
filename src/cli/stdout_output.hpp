// kpc's output on stdout must reach its destination: a full disk or a closed stdout is an
// error that names the cause (as ls and cat report it), never a silent exit 0.
#pragma once

#include <string>

namespace kpc_cli {

// Call first in main. A closed stdout or stderr is reopened read-only on /dev/null, so that
// writes to it still fail (EBADF) and no file the library opens takes its descriptor and
// receives kpc's output.
void guard_standard_streams() noexcept;

// Write `text` to stdout and flush it. Throws CliError (exit 1) naming the cause.
void write_stdout(const std::string &text);

// After a command: throws CliError (exit 1) if anything written to stdout was lost.
void check_stdout();

}  // namespace kpc_cli
