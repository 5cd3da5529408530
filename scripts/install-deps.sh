#!/usr/bin/env bash
# Installs what libkpc's build and tests need, from Debian's packages only.
# Every machine (a developer's, CI's) may start bare, so the project installs its own tools.
set -euo pipefail

# The main job (--demo, from scripts/demo.sh): a C++ compiler, CMake and Python for the simulator's
# generated tables. Nothing else.
demo_packages=(cmake ninja-build g++ python3)

packages=(
  "${demo_packages[@]}" pkg-config          # build
  git                                        # tests/ci makes the Homebrew tarball with git archive
  make                                       # tests that build with CMake's default generator (Homebrew formula, run-ctest)
  libgtest-dev libgmock-dev                  # C++ tests
  libbenchmark-dev                           # kpc/benchmark.hpp's test (tests/benchmark)
  libpfm4-dev                                # native Linux PMU event names (optional feature)
  linux-perf                                 # kpc stat is checked against perf stat
  strace                                     # kpc stat groups: the perf_event_open calls it makes
  valgrind                                   # callgrind instruction counts (bench/)
  bindgen libclang-dev                       # Rust ABI harness: FFI generated from kpc.h
  librust-criterion-dev librust-libc-dev     # Rust crates (bindings/rust), built offline from /usr/share/cargo/registry
  swig                                       # Java and Go bindings (bindings/swig/kpc.i)
  openjdk-17-jdk-headless junit5             # Java binding and its JUnit 5 tests
  golang-go                                  # Go binding and its tests
  ruby                                       # runs the Homebrew formula (tests/homebrew)
  python3-yaml                               # parses .github/workflows/macos.yml (tests/ci)
  shellcheck                                 # lints scripts/ci/*.sh and scripts/test-on-mac.sh (tests/ci)
  python3-pytest python3-pytest-benchmark python3-pip python3-setuptools python3-wheel  # Python binding (bindings/python)
  python3-venv                               # the Python wheel installed into a fresh environment; zig for macOS builds
  llvm                                       # llvm-objdump, llvm-nm, install-name-tool: the macOS builds checked (scripts/ci/macos-build.sh)
)
if [ "${1:-}" = "--demo" ]; then
  packages=("${demo_packages[@]}")
else
  # The Rust harness needs cargo; use the machine's rustup toolchain when there is one.
  if ! command -v cargo >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
    packages+=(cargo rustc)
  fi
  # The libFuzzer targets (scripts/fuzz.sh) need clang with compiler-rt; Swift's toolchain
  # ships one in /opt/swift, otherwise Debian's.
  if [ ! -x /opt/swift/usr/bin/clang++ ]; then
    packages+=(clang libclang-rt-14-dev)
  else
    # What the Swift toolchain for Debian 12 needs at run time (swift.org's install notes).
    packages+=(binutils libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev libpython3-dev
               libsqlite3-0 libstdc++-12-dev libxml2-dev libncurses-dev libz3-dev tzdata zlib1g-dev)
  fi
fi

# Installed for this machine's architecture: the aarch64 stages add arm64 copies of some
# packages (libgtest-dev:arm64), which must not pass for the native ones.
native=$(dpkg --print-architecture)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status} ${Architecture}\n' "$p" 2>/dev/null |
    grep -qE "^install ok installed ($native|all)\$" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
