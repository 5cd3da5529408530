#!/bin/sh
# Configures and builds libkpc, its tests and the kpc tool into BUILD_DIR, the way the
# project's own checks do (warnings are errors). The language bindings are left out: the
# Swift package is built by SwiftPM (scripts/ci/swift-package.sh).
# usage: scripts/ci/build.sh BUILD_DIR [extra cmake arguments...]
# KPC_JOBS sets the parallel jobs (default: every CPU).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [cmake arguments...]" >&2; exit 2; }
build=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${KPC_JOBS:-$(getconf _NPROCESSORS_ONLN)}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPC_WERROR=ON \
  -DKPC_BUILD_BINDINGS=OFF "$@"
cmake --build "$build" -j "$jobs"
