#!/bin/sh
# The aarch64 stage (issue 17 section 1): cross-builds libkpc, kpc and the C++ test suite
# for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu (warnings are errors), then runs
# the suite under qemu-user through CTest (CMAKE_CROSSCOMPILING_EMULATOR, set by
# cmake/toolchains/aarch64-linux-gnu.cmake). What qemu-user cannot run is left out by the
# test CMake files themselves (tests/CMakeLists.txt, grep KPC_TESTS_EMULATED).
# Prints CTest's summary line and every skip with its reason (scripts/ci/run-ctest.sh);
# exits non-zero when a tool is missing, the build fails or a test fails.
#
# usage: scripts/ci/aarch64-suite.sh [BUILD_DIR]
#   BUILD_DIR (or $KPC_AARCH64_BUILD_DIR): default build-aarch64 in the source tree.
#   KPC_AARCH64_NO_INSTALL=1: never apt-get install, fail if something is missing.
#   KPC_JOBS: parallel build and test jobs (default: nproc).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${KPC_AARCH64_BUILD_DIR:-$ROOT/build-aarch64}}
JOBS=${KPC_JOBS:-$(nproc)}

die() { echo "aarch64-suite: FAILED: $*" >&2; exit 1; }
now() { date +%s; }

# --- What the host needs ------------------------------------------------------------------
# arm64 multiarch for GoogleTest built for the target; the cross compiler and qemu-user.
PACKAGES="g++-aarch64-linux-gnu qemu-user libgtest-dev:arm64 libgmock-dev:arm64 cmake ninja-build python3"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    if [ "$(id -u)" != 0 ] || [ "${KPC_AARCH64_NO_INSTALL:-0}" = 1 ]; then
        die "arm64 multiarch is not enabled: run 'dpkg --add-architecture arm64 && apt-get update' as root"
    fi
    dpkg --add-architecture arm64
    apt-get update -q >/dev/null || die "apt-get update failed after adding arm64"
fi
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ] || [ "${KPC_AARCH64_NO_INSTALL:-0}" = 1 ]; then
        die "missing packages:$missing (apt-get install$missing)"
    fi
    echo "aarch64-suite: installing$missing"
    # shellcheck disable=SC2086  # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null ||
        { apt-get update -q >/dev/null &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null; } ||
        die "apt-get install$missing failed"
fi
for tool in aarch64-linux-gnu-g++ qemu-aarch64 cmake ninja ctest python3; do
    command -v "$tool" >/dev/null || die "$tool not found"
done
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] ||
    die "/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 missing (apt-get install libc6-arm64-cross)"
[ -e /usr/lib/aarch64-linux-gnu/libgtest.a ] || [ -e /usr/lib/aarch64-linux-gnu/libgtest.so ] ||
    die "GoogleTest for arm64 missing (apt-get install libgtest-dev:arm64 libgmock-dev:arm64)"

# --- Cross-build ----------------------------------------------------------------------------
t0=$(now)
cmake -S "$ROOT" -B "$BUILD" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/aarch64-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPC_WERROR=ON -DKPC_BUILD_TESTS=ON \
    -DKPC_BUILD_BINDINGS=OFF -DKPC_BUILD_BENCH=OFF -DKPC_WITH_LIBPFM=OFF -DKPC_INSTALL=OFF >/dev/null ||
    die "cmake configure of $BUILD failed (its message above names the cause)"
cmake --build "$BUILD" -j"$JOBS" || die "cross-build failed (cmake --build $BUILD)"
t1=$(now)
echo "aarch64-suite: cross-build $((t1 - t0)) s"

# --- The suite under qemu-user ------------------------------------------------------------
status=0
"$ROOT/scripts/ci/run-ctest.sh" "$BUILD" -j"$JOBS" --no-tests=error || status=$?
t2=$(now)
echo "aarch64-suite: tests under qemu-user $((t2 - t1)) s"
[ "$status" = 0 ] || die "ctest failed (ctest --test-dir $BUILD --rerun-failed --output-on-failure)"
