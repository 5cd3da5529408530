#!/bin/sh
# Installs libkpc into a fresh prefix and checks that a user can build against it.
#   install_test.sh shared   installs this build (KPC_BUILD_DIR)
#   install_test.sh static   configures, builds and installs the library alone from the
#                            source with -DBUILD_SHARED_LIBS=OFF (libkpc.a)
# Checks:
#  1. the installed tree holds the headers, the licence texts, kpc.pc and the CMake package;
#     shared: libkpc.so.0 (SONAME) and, when the CLI is built, bin/kpc (whose libraries all
#     resolve); static: libkpc.a and no shared libkpc at all;
#  2. examples/quickstart.c compiles as C with only `pkg-config --cflags --libs kpc`
#     (`--static` for libkpc.a), runs, and counts task-clock and page-faults;
#  3. tests/install/consumer (C++) and tests/install/consumer_c (a C-only project, as the
#     C++ runtime of libkpc.a must come from kpc::kpc) build with find_package(kpc) and run.
# Driven by CTest (tests/install/CMakeLists.txt), which passes the KPC_* variables.
set -eu

fail() { echo "install test FAILED: $*" >&2; exit 1; }
mode=${1:-}
case "$mode" in shared | static) ;; *) fail "usage: install_test.sh shared|static" ;; esac
for v in KPC_BUILD_DIR KPC_SOURCE_DIR KPC_CMAKE KPC_GENERATOR KPC_CC KPC_CXX KPC_LIBDIR \
         KPC_INCLUDEDIR KPC_BINDIR KPC_VERSION KPC_SOVERSION; do
  eval "[ -n \"\${$v:-}\" ]" || fail "$v is not set; run this through ctest"
done
command -v pkg-config >/dev/null || fail "pkg-config not found (apt-get install pkg-config)"

work=$(mktemp -d "${TMPDIR:-/tmp}/kpc-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

# --- 1. install and inspect ---------------------------------------------------------
if [ "$mode" = static ]; then
  # The library alone: a static build leaves the tests and bindings out by itself.
  # Unoptimised (Debug): what is checked is the install and the link, not the code's speed,
  # and an -O2 build of libkpc took CI a minute.
  "$KPC_CMAKE" -S "$KPC_SOURCE_DIR" -B "$work/build" -G "$KPC_GENERATOR" \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER="$KPC_CC" -DCMAKE_CXX_COMPILER="$KPC_CXX" \
    -DCMAKE_INSTALL_LIBDIR="$KPC_LIBDIR" -DCMAKE_INSTALL_INCLUDEDIR="$KPC_INCLUDEDIR" \
    -DBUILD_SHARED_LIBS=OFF -DKPC_BUILD_CLI=OFF -DKPC_BUILD_BENCH=OFF \
    >"$work/static-build.log" 2>&1 ||
    { cat "$work/static-build.log" >&2; fail "configuring the static build failed"; }
  "$KPC_CMAKE" --build "$work/build" --parallel 2 >>"$work/static-build.log" 2>&1 ||
    { cat "$work/static-build.log" >&2; fail "building the static library failed"; }
  build_dir="$work/build"
  config_arg=""
else
  build_dir="$KPC_BUILD_DIR"
  config_arg=""
  [ -n "${KPC_CONFIG:-}" ] && config_arg="--config $KPC_CONFIG"
fi
# shellcheck disable=SC2086
"$KPC_CMAKE" --install "$build_dir" --prefix "$prefix" $config_arg >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "cmake --install failed"; }

case "$KPC_LIBDIR" in /*) libdir="$KPC_LIBDIR" ;; *) libdir="$prefix/$KPC_LIBDIR" ;; esac
case "$KPC_INCLUDEDIR" in /*) incdir="$KPC_INCLUDEDIR" ;; *) incdir="$prefix/$KPC_INCLUDEDIR" ;; esac

for h in "$KPC_SOURCE_DIR"/include/kpc/*.h "$KPC_SOURCE_DIR"/include/kpc/*.hpp; do
  [ -f "$incdir/kpc/$(basename "$h")" ] || fail "header kpc/$(basename "$h") not installed in $incdir"
done
for f in LICENSE LICENSE-MIT LICENSE-APACHE; do
  cmp -s "$KPC_SOURCE_DIR/$f" "$prefix/share/doc/kpc/$f" || fail "$f not installed in $prefix/share/doc/kpc"
done
if [ "$mode" = static ]; then
  [ -f "$libdir/libkpc.a" ] || fail "$libdir/libkpc.a not installed"
  shared_libs=$(find "$prefix" -name 'libkpc*.so*' -o -name 'libkpc*.dylib')
  [ -z "$shared_libs" ] || fail "a static build installed shared libraries: $shared_libs"
  lib_note="libkpc.a (no shared library)"
else
  soname_file="$libdir/libkpc.so.$KPC_SOVERSION"
  [ -f "$soname_file" ] || fail "$soname_file not installed"
  [ -e "$libdir/libkpc.so" ] || fail "development link $libdir/libkpc.so not installed"
  soname=$(readelf -d "$soname_file" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
  [ "$soname" = "libkpc.so.$KPC_SOVERSION" ] || fail "SONAME is '$soname', expected libkpc.so.$KPC_SOVERSION"
  lib_note="$(basename "$soname_file") (SONAME $soname)"
fi
for f in pkgconfig/kpc.pc cmake/kpc/kpcConfig.cmake cmake/kpc/kpcConfigVersion.cmake \
         cmake/kpc/kpcTargets.cmake; do
  [ -f "$libdir/$f" ] || fail "$libdir/$f not installed"
done
# Installed metadata must not point back into the build or source tree.
if grep -rl -e "$build_dir" -e "$KPC_SOURCE_DIR" "$libdir/pkgconfig" "$libdir/cmake/kpc"; then
  fail "installed package files above refer to the build or source directory"
fi
cli_note=""
if [ "$mode" = shared ] && [ "${KPC_HAVE_CLI:-0}" = 1 ]; then
  cli="$prefix/$KPC_BINDIR/kpc"
  [ -x "$cli" ] || fail "the kpc tool is built but $cli was not installed"
  if ldd "$cli" | grep "not found"; then
    fail "installed $cli has unresolved libraries (missing RPATH?)"
  fi
  cli_note=", bin/kpc"
fi
echo "installed: headers, licences, $lib_note, kpc.pc, CMake package$cli_note"

# Consumers use the library's sanitizers too: a sanitized libkpc.so needs the runtime.
san_flags=""
[ -n "${KPC_SANITIZE:-}" ] && san_flags="-fsanitize=$KPC_SANITIZE"

# check_quickstart OUTPUT: task-clock and page-faults are always counted (the fresh pages
# fault at least once each); cycles and instructions are counted or reported with a reason.
check_quickstart() {
  awk '$1 == "task-clock" && $2 + 0 > 0 { c = 1 } $1 == "page-faults" && $2 + 0 >= 256 { f = 1 }
       END { exit !(c && f) }' "$1" ||
    fail "quickstart did not report task-clock > 0 and page-faults >= 256 (output: $1)"
  for ev in cycles instructions; do
    grep -Eq "^$ev +([0-9]+\$|not counted: .+)" "$1" ||
      grep -q "^hardware events not counted: ." "$1" ||
      fail "quickstart neither counted $ev nor said why not"
  done
}

# --- 2. quickstart.c through pkg-config only -------------------------------------------
PKG_CONFIG_PATH="$libdir/pkgconfig"
export PKG_CONFIG_PATH
pkg-config --validate kpc || fail "pkg-config --validate kpc rejected $libdir/pkgconfig/kpc.pc"
[ "$(pkg-config --modversion kpc)" = "$KPC_VERSION" ] ||
  fail "kpc.pc version $(pkg-config --modversion kpc), expected $KPC_VERSION"
[ "$(pkg-config --variable=libdir kpc)" = "$libdir" ] ||
  fail "kpc.pc libdir is $(pkg-config --variable=libdir kpc), expected $libdir (the install prefix)"
if [ "$mode" = static ]; then
  pc_flags=$(pkg-config --static --cflags --libs kpc)
  case " $pc_flags " in *" -DKP_STATIC "*) ;; *) fail "kpc.pc of libkpc.a lacks -DKP_STATIC: $pc_flags" ;; esac
else
  pc_flags=$(pkg-config --cflags --libs kpc)
fi
# shellcheck disable=SC2086
"$KPC_CC" -std=c99 -Wall -Wextra -pedantic -Werror $san_flags \
  "$KPC_SOURCE_DIR/examples/quickstart.c" $pc_flags -o "$work/quickstart" ||
  fail "examples/quickstart.c did not build with: $KPC_CC ... $pc_flags"
if [ "$mode" = static ] && readelf -d "$work/quickstart" | grep -q 'NEEDED.*libkpc'; then
  fail "the quickstart linked with pkg-config --static depends on a shared libkpc"
fi
status=0
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/quickstart" >"$work/quickstart.out" 2>&1 ||
  status=$?
[ "$status" = 0 ] || { cat "$work/quickstart.out" >&2; fail "quickstart exited with status $status"; }
cat "$work/quickstart.out"
check_quickstart "$work/quickstart.out"
if [ "$mode" = shared ]; then
  # README's other way for a custom prefix: an rpath from kpc.pc, and no library path.
  # shellcheck disable=SC2086
  "$KPC_CC" -std=c99 $san_flags "$KPC_SOURCE_DIR/examples/quickstart.c" $pc_flags \
    -Wl,-rpath,"$(pkg-config --variable=libdir kpc)" -o "$work/quickstart_rpath" ||
    fail "examples/quickstart.c did not build with -Wl,-rpath,\$(pkg-config --variable=libdir kpc)"
  env -u LD_LIBRARY_PATH "$work/quickstart_rpath" >"$work/quickstart_rpath.out" 2>&1 ||
    { cat "$work/quickstart_rpath.out" >&2; fail "quickstart linked with the rpath did not run"; }
  check_quickstart "$work/quickstart_rpath.out"
fi

# --- 3. CMake consumers through find_package(kpc) ---------------------------------------
for consumer in consumer consumer_c; do
  "$KPC_CMAKE" -S "$KPC_SOURCE_DIR/tests/install/$consumer" -B "$work/$consumer" -G "$KPC_GENERATOR" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$KPC_CC" -DCMAKE_CXX_COMPILER="$KPC_CXX" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$san_flags" -DCMAKE_CXX_FLAGS="$san_flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$san_flags" -DKPC_EXPECTED_VERSION="$KPC_VERSION" \
    -DKPC_EXPECTED_TYPE="$mode" -DKPC_QUICKSTART="$KPC_SOURCE_DIR/examples/quickstart.c" \
    >"$work/$consumer.log" 2>&1 ||
    { cat "$work/$consumer.log" >&2; fail "configuring the find_package(kpc) project $consumer failed"; }
  grep "$consumer: found kpc" "$work/$consumer.log"
  "$KPC_CMAKE" --build "$work/$consumer" >>"$work/$consumer.log" 2>&1 ||
    { cat "$work/$consumer.log" >&2; fail "building the find_package(kpc) project $consumer failed"; }
done
# No LD_LIBRARY_PATH: CMake gives the consumers an RPATH to the imported kpc::kpc.
"$work/consumer/app" || fail "the find_package(kpc) consumer failed"
"$work/consumer_c/quickstart" >"$work/quickstart_c.out" 2>&1 ||
  { cat "$work/quickstart_c.out" >&2; fail "the C find_package(kpc) consumer failed"; }
check_quickstart "$work/quickstart_c.out"
echo "install test ($mode) passed"
