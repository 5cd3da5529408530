#!/bin/sh
# Installs what building and testing libkpc needs: Debian packages on Linux
# (scripts/install-deps.sh), Homebrew packages on macOS (GoogleTest for the C++ tests and
# Ninja; Xcode's command-line tools bring the compiler, Swift and Python).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
case "$(uname -s)" in
  Linux) exec "$root/scripts/install-deps.sh" ;;
  Darwin)
    command -v brew >/dev/null || { echo "deps: Homebrew not found: see https://brew.sh" >&2; exit 1; }
    brew install googletest ninja cmake ;;
  *) echo "deps: $(uname -s) is not supported (Linux and macOS are)" >&2; exit 1 ;;
esac
