#!/bin/sh
# Builds one of the parent projects in this directory against this checkout and runs its
# program (examples/quickstart.c linked to the vendored kpc::kpc). The parent's configure
# step runs VendorChecks.cmake, so a subproject that defines more than the library, adds
# tests, or writes the parent's settings fails here.
#   vendor_test.sh subdirectory|fetchcontent
# Driven by CTest (tests/vendor/CMakeLists.txt), which passes the KPC_* variables.
set -eu

fail() { echo "vendor test FAILED: $*" >&2; exit 1; }
parent=${1:-}
case "$parent" in subdirectory | fetchcontent) ;; *) fail "usage: vendor_test.sh subdirectory|fetchcontent" ;; esac
for v in KPC_SOURCE_DIR KPC_CMAKE KPC_GENERATOR KPC_CC KPC_CXX; do
  eval "[ -n \"\${$v:-}\" ]" || fail "$v is not set; run this through ctest"
done

# The FetchContent parent holds README.md's snippet between two marker lines; keep them one.
if [ "$parent" = fetchcontent ]; then
  snippet=$(sed -n '/^# --- as in README.md ---$/,/^# --- end ---$/p' "$KPC_SOURCE_DIR/tests/vendor/fetchcontent/CMakeLists.txt" |
            sed '1d;$d' | tr '\n' '\001')
  [ -n "$snippet" ] || fail "tests/vendor/fetchcontent/CMakeLists.txt lost its README.md markers"
  case "$(tr '\n' '\001' <"$KPC_SOURCE_DIR/README.md")" in
    *"$snippet"*) ;;
    *) fail "README.md's FetchContent snippet differs from tests/vendor/fetchcontent/CMakeLists.txt" ;;
  esac
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kpc-vendor-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

# No CMAKE_BUILD_TYPE: the parent leaves it empty, and libkpc must leave it so.
# FETCHCONTENT_SOURCE_DIR_KPC makes FetchContent use this checkout instead of cloning.
"$KPC_CMAKE" -S "$KPC_SOURCE_DIR/tests/vendor/$parent" -B "$work/build" -G "$KPC_GENERATOR" \
  -DCMAKE_C_COMPILER="$KPC_CC" -DCMAKE_CXX_COMPILER="$KPC_CXX" \
  -DKPC_SOURCE_DIR="$KPC_SOURCE_DIR" -DFETCHCONTENT_SOURCE_DIR_KPC="$KPC_SOURCE_DIR" \
  >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; fail "configuring the $parent parent failed"; }
grep "vendor check:" "$work/configure.log"
"$KPC_CMAKE" --build "$work/build" --parallel 2 >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; fail "building the $parent parent failed"; }

"$work/build/app" >"$work/app.out" 2>&1 || { cat "$work/app.out" >&2; fail "the parent's program failed"; }
cat "$work/app.out"
grep -Eq '^task-clock +[1-9][0-9]* ns$' "$work/app.out" || fail "the parent's program counted no task-clock"
if [ "$parent" = subdirectory ]; then
  # The parent asked for the kpc tool; it is built next to libkpc.
  "$work/build/kpc/src/cli/kpc" --version | grep -Eq '^kpc [0-9]+\.[0-9]+\.[0-9]+$' ||
    fail "the kpc tool the parent asked for did not build or run"
fi
echo "vendor test ($parent) passed"
