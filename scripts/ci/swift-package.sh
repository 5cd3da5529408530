#!/bin/sh
# The Swift package, as a user meets it: `swift build` and `swift test` of the root package
# (Package.swift), then a separate package that depends on it by path
# (tests/ci/swift_consumer), built and run.
# usage: scripts/ci/swift-package.sh SCRATCH_DIR   (SwiftPM's build directories go below it)
# SWIFT names the swift driver (default: swift on PATH); KPC_JOBS limits parallel jobs;
# KPC_SWIFT_ROOT_SCRATCH (optional) is the root package's scratch directory (see below).
# Tests that need a PMU or root skip with their reason (XCTest prints it).
set -eu
[ $# -eq 1 ] || { echo "usage: $0 SCRATCH_DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
swift=${SWIFT:-swift}
jobs=""
[ -n "${KPC_JOBS:-}" ] && jobs="-j $KPC_JOBS"
# Scratch directories end in .build: if they lie inside the repository, SwiftPM then leaves
# them out of the root package's fingerprint (see bindings/swift/CMakeLists.txt).
# KPC_SWIFT_ROOT_SCRATCH: a scratch directory that already holds a build of the root package
# with its tests (CTest's swift_build), so that it is not compiled a second time.
scratch_root="${KPC_SWIFT_ROOT_SCRATCH:-$1/root/.build}"
scratch_consumer="$1/consumer/.build"

set -x
# shellcheck disable=SC2086
"$swift" build $jobs --package-path "$root" --scratch-path "$scratch_root"
# shellcheck disable=SC2086
"$swift" test $jobs --package-path "$root" --scratch-path "$scratch_root"
# shellcheck disable=SC2086
"$swift" build $jobs --package-path "$root/tests/ci/swift_consumer" --scratch-path "$scratch_consumer"
"$scratch_consumer/debug/KpcConsumer"
