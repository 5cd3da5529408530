#!/bin/sh
# Installs a build into a temporary prefix and checks that programs find the installed
# library the way the platform expects, then links a C program against it and runs it:
#   macOS: libkpc.dylib's install name is @rpath/libkpc.<SOVERSION>.dylib (otool -D), the
#          program loads it through @rpath (otool -L) and carries the LC_RPATH it was given;
#   Linux: libkpc.so.<SOVERSION> has that SONAME, the program NEEDs it and has the
#          RUNPATH it was given (readelf -d).
# The program runs with no DYLD_/LD_LIBRARY_PATH, so the names above are what it relies on.
# usage: scripts/ci/check-library-names.sh BUILD_DIR
set -eu

fail() { echo "check-library-names: FAILED: $*" >&2; exit 1; }
[ $# -eq 1 ] || fail "usage: $0 BUILD_DIR"
build=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
so=$(sed -n 's/^#define KP_SOVERSION \([0-9]*\)$/\1/p' "$root/include/kpc/version.h")
[ -n "$so" ] || fail "KP_SOVERSION not found in include/kpc/version.h"

work=$(mktemp -d "${TMPDIR:-/tmp}/kpc-names.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "cmake --install $build failed"; }
libdir="$prefix/lib"
[ -d "$libdir" ] || libdir=$(dirname "$(find "$prefix" -name 'libkpc.*' | head -n 1)")

cat >"$work/probe.c" <<'EOF'
#include <kpc/kpc.h>
#include <stdio.h>
int main(void) { printf("probe linked libkpc %s\n", kp_version_string()); return 0; }
EOF
"${CC:-cc}" "$work/probe.c" -I"$prefix/include" -L"$libdir" -Wl,-rpath,"$libdir" -lkpc \
  -o "$work/probe" || fail "the probe did not link against $libdir"

case "$(uname -s)" in
  Darwin)
    lib="$libdir/libkpc.$so.dylib"
    [ -f "$lib" ] || fail "$lib not installed"
    id=$(otool -D "$lib" | sed -n 2p)
    [ "$id" = "@rpath/libkpc.$so.dylib" ] ||
      fail "install name of $lib is '$id', expected @rpath/libkpc.$so.dylib"
    otool -L "$work/probe" | grep -q "^[[:space:]]*@rpath/libkpc\.$so\.dylib " ||
      { otool -L "$work/probe"; fail "the probe does not load libkpc through @rpath"; }
    otool -l "$work/probe" | grep -A2 LC_RPATH | grep -q "path $libdir " ||
      fail "the probe has no LC_RPATH $libdir"
    echo "install name: $id; probe: @rpath/libkpc.$so.dylib, LC_RPATH $libdir"
    ;;
  Linux)
    lib="$libdir/libkpc.so.$so"
    [ -f "$lib" ] || fail "$lib not installed"
    soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
    [ "$soname" = "libkpc.so.$so" ] || fail "SONAME of $lib is '$soname', expected libkpc.so.$so"
    readelf -d "$work/probe" | grep -q "(NEEDED).*\[libkpc\.so\.$so\]" ||
      fail "the probe does not NEED libkpc.so.$so"
    runpath=$(readelf -d "$work/probe" | sed -n 's/.*(RUNPATH).*\[\(.*\)\].*/\1/p')
    [ "$runpath" = "$libdir" ] || fail "the probe's RUNPATH is '$runpath', expected $libdir"
    echo "SONAME: $soname; probe: NEEDED $soname, RUNPATH $runpath"
    ;;
  *) fail "no library-name check for $(uname -s)" ;;
esac

out=$(env -u DYLD_LIBRARY_PATH -u LD_LIBRARY_PATH "$work/probe") || fail "the probe did not run"
echo "$out"
case "$out" in "probe linked libkpc "[0-9]*) ;; *) fail "unexpected probe output" ;; esac
echo "check-library-names: ok"
