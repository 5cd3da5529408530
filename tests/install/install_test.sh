#!/bin/sh
# Installs the build into a fresh prefix and checks that a user can build against it:
#  1. the installed tree holds the headers, libkpc.so.0 (SONAME), kpc.pc, the CMake
#     package and, when the CLI is built, bin/kpc (whose libraries all resolve);
#  2. examples/quickstart.c compiles as C with only `pkg-config --cflags --libs kpc`, runs,
#     and counts task-clock and page-faults;
#  3. tests/install/consumer configures with find_package(kpc), builds, and runs.
# Driven by CTest (tests/install/CMakeLists.txt), which passes the KPC_* variables.
set -eu

fail() { echo "install test FAILED: $*" >&2; exit 1; }
for v in KPC_BUILD_DIR KPC_SOURCE_DIR KPC_CMAKE KPC_GENERATOR KPC_CC KPC_CXX KPC_LIBDIR \
         KPC_INCLUDEDIR KPC_BINDIR KPC_VERSION KPC_SOVERSION; do
  eval "[ -n \"\${$v:-}\" ]" || fail "$v is not set; run this through ctest"
done
command -v pkg-config >/dev/null || fail "pkg-config not found (apt-get install pkg-config)"

work=$(mktemp -d "${TMPDIR:-/tmp}/kpc-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

# --- 1. install and inspect ---------------------------------------------------------
config_arg=""
[ -n "${KPC_CONFIG:-}" ] && config_arg="--config $KPC_CONFIG"
# shellcheck disable=SC2086
"$KPC_CMAKE" --install "$KPC_BUILD_DIR" --prefix "$prefix" $config_arg >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "cmake --install failed"; }

case "$KPC_LIBDIR" in /*) libdir="$KPC_LIBDIR" ;; *) libdir="$prefix/$KPC_LIBDIR" ;; esac
case "$KPC_INCLUDEDIR" in /*) incdir="$KPC_INCLUDEDIR" ;; *) incdir="$prefix/$KPC_INCLUDEDIR" ;; esac

for h in "$KPC_SOURCE_DIR"/include/kpc/*.h; do
  [ -f "$incdir/kpc/$(basename "$h")" ] || fail "header kpc/$(basename "$h") not installed in $incdir"
done
soname_file="$libdir/libkpc.so.$KPC_SOVERSION"
[ -f "$soname_file" ] || fail "$soname_file not installed"
[ -e "$libdir/libkpc.so" ] || fail "development link $libdir/libkpc.so not installed"
soname=$(readelf -d "$soname_file" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[ "$soname" = "libkpc.so.$KPC_SOVERSION" ] || fail "SONAME is '$soname', expected libkpc.so.$KPC_SOVERSION"
for f in pkgconfig/kpc.pc cmake/kpc/kpcConfig.cmake cmake/kpc/kpcConfigVersion.cmake \
         cmake/kpc/kpcTargets.cmake; do
  [ -f "$libdir/$f" ] || fail "$libdir/$f not installed"
done
# Installed metadata must not point back into the build or source tree.
if grep -rl -e "$KPC_BUILD_DIR" -e "$KPC_SOURCE_DIR" "$libdir/pkgconfig" "$libdir/cmake/kpc"; then
  fail "installed package files above refer to the build or source directory"
fi
if [ "${KPC_HAVE_CLI:-0}" = 1 ]; then
  cli="$prefix/$KPC_BINDIR/kpc"
  [ -x "$cli" ] || fail "the kpc tool is built but $cli was not installed"
  if ldd "$cli" | grep "not found"; then
    fail "installed $cli has unresolved libraries (missing RPATH?)"
  fi
fi
cli_note=""
[ "${KPC_HAVE_CLI:-0}" = 1 ] && cli_note=", bin/kpc"
echo "installed: headers, $(basename "$soname_file") (SONAME $soname), kpc.pc, CMake package$cli_note"

# Consumers use the library's sanitizers too: a sanitized libkpc.so needs the runtime.
san_flags=""
[ -n "${KPC_SANITIZE:-}" ] && san_flags="-fsanitize=$KPC_SANITIZE"

# --- 2. quickstart.c through pkg-config only -------------------------------------------
PKG_CONFIG_PATH="$libdir/pkgconfig"
export PKG_CONFIG_PATH
pkg-config --validate kpc || fail "pkg-config --validate kpc rejected $libdir/pkgconfig/kpc.pc"
[ "$(pkg-config --modversion kpc)" = "$KPC_VERSION" ] ||
  fail "kpc.pc version $(pkg-config --modversion kpc), expected $KPC_VERSION"
[ "$(pkg-config --variable=libdir kpc)" = "$libdir" ] ||
  fail "kpc.pc libdir is $(pkg-config --variable=libdir kpc), expected $libdir (the install prefix)"
pc_flags=$(pkg-config --cflags --libs kpc)
# shellcheck disable=SC2086
"$KPC_CC" -std=c99 -Wall -Wextra -pedantic -Werror $san_flags \
  "$KPC_SOURCE_DIR/examples/quickstart.c" $pc_flags -o "$work/quickstart" ||
  fail "examples/quickstart.c did not build with: $KPC_CC ... $pc_flags"
status=0
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/quickstart" >"$work/quickstart.out" 2>&1 ||
  status=$?
[ "$status" = 0 ] || { cat "$work/quickstart.out" >&2; fail "quickstart exited with status $status"; }
cat "$work/quickstart.out"
# task-clock and page-faults are always counted; the fresh pages fault at least once each.
awk '$1 == "task-clock" && $2 + 0 > 0 { c = 1 } $1 == "page-faults" && $2 + 0 >= 256 { f = 1 }
     END { exit !(c && f) }' "$work/quickstart.out" ||
  fail "quickstart did not report task-clock > 0 and page-faults >= 256"
# cycles and instructions are either counted or reported with a reason.
for ev in cycles instructions; do
  grep -Eq "^$ev +([0-9]+\$|not counted: .+)" "$work/quickstart.out" ||
    grep -q "^hardware events not counted: ." "$work/quickstart.out" ||
    fail "quickstart neither counted $ev nor said why not"
done

# --- 3. CMake consumer through find_package(kpc) ----------------------------------------
"$KPC_CMAKE" -S "$KPC_SOURCE_DIR/tests/install/consumer" -B "$work/consumer" -G "$KPC_GENERATOR" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$KPC_CXX" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$san_flags" -DCMAKE_EXE_LINKER_FLAGS="$san_flags" \
  -DKPC_EXPECTED_VERSION="$KPC_VERSION" >"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log" >&2; fail "configuring the find_package(kpc) consumer failed"; }
grep "consumer: found kpc" "$work/consumer.log"
"$KPC_CMAKE" --build "$work/consumer" >>"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log" >&2; fail "building the find_package(kpc) consumer failed"; }
# No LD_LIBRARY_PATH: CMake gives the consumer an RPATH to the imported kpc::kpc.
"$work/consumer/app" || fail "the find_package(kpc) consumer failed"
echo "install test passed"
