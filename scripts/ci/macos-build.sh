#!/usr/bin/env bash
# Builds libkpc (shared) and kpc for arm64 and x86_64 macOS on Linux with zig's clang (PyPI's
# `ziglang`, cmake/toolchains/zig-macos-*.cmake), warnings as errors, installs each into a
# staging prefix and checks what a Mac would rely on:
#   - libkpc.dylib exports exactly docs/symbols.txt;
#   - it links libSystem (and at most the C++ runtime) and no framework: kperf and kperfdata
#     are dlopen'ed;
#   - installed, its install name is @rpath/libkpc.<SOVERSION>.dylib, and kpc loads it
#     through @rpath from ../lib; on arm64 both still carry a matching ad-hoc signature;
#   - the public headers compile as strict C99 for the target.
# This proves that libkpc compiles and links for a Mac; it does not run anything there.
# One line per check, then `macos-build: N passed, N failed`; exit status 1 on any failure.
#
# usage: scripts/ci/macos-build.sh [arm64] [x86_64]      (both when none is named)
# Build dirs: build-macos-<arch>; zig lives in build-macos-zig-venv (KPC_ZIG_VENV overrides).
# Lists of symbols and dylibs are split into words on purpose when printed.
# shellcheck disable=SC2086
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(arm64 x86_64)
jobs=${JOBS:-2}
venv=${KPC_ZIG_VENV:-$root/build-macos-zig-venv}
ziglang_version=${KPC_ZIGLANG_VERSION:-0.17.1}

die() { echo "macos-build: FAILED: $*" >&2; exit 1; }

# --- tools: Debian packages, then zig from PyPI -------------------------------------------
need_pkgs=()
command -v cmake >/dev/null || need_pkgs+=(cmake)
command -v ninja >/dev/null || need_pkgs+=(ninja-build)
command -v llvm-objdump >/dev/null && command -v llvm-nm >/dev/null &&
  { command -v llvm-install-name-tool >/dev/null || command -v llvm-install-name-tool-14 >/dev/null; } ||
  need_pkgs+=(llvm)
python3 -c 'import venv, ensurepip' 2>/dev/null || need_pkgs+=(python3-venv)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "macos-build: installing ${need_pkgs[*]}"
  command -v apt-get >/dev/null || die "missing ${need_pkgs[*]} and no apt-get to install them"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_pkgs[@]}" >/dev/null ||
    { apt-get update -q >/dev/null &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_pkgs[@]}" >/dev/null; } ||
    die "apt-get install ${need_pkgs[*]} failed"
fi

zig_of_venv() { "$venv/bin/python" -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))' 2>/dev/null; }
zig=$(zig_of_venv) || zig=""
if [ -z "$zig" ] || ! "$zig" version >/dev/null 2>&1; then
  echo "macos-build: installing ziglang $ziglang_version from PyPI into $venv"
  python3 -m venv "$venv" || die "python3 -m venv $venv failed (Debian: apt-get install python3-venv)"
  "$venv/bin/pip" install -q "ziglang==$ziglang_version" ||
    die "pip install ziglang==$ziglang_version failed: no zig, so no macOS build (is PyPI reachable?)"
  zig=$(zig_of_venv) || die "ziglang installed but its zig executable was not found in $venv"
  "$zig" version >/dev/null || die "$zig does not run"
fi
echo "macos-build: zig $("$zig" version) ($zig)"

so=$(sed -n 's/^#define KP_SOVERSION \([0-9]*\)$/\1/p' include/kpc/version.h)
[ -n "$so" ] || die "KP_SOVERSION not found in include/kpc/version.h"

# --- checks --------------------------------------------------------------------------------
passed=0
failed=0
# check NAME CMD...: runs CMD, prints one line; CMD's output is shown only when it fails.
check() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then
    passed=$((passed + 1))
    echo "PASS  $name${out:+: $out}" | head -n 1
  else
    failed=$((failed + 1))
    echo "FAIL  $name"
    [ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/      /'
    return 1
  fi
}

# zig links its own libc++ statically into the dylib, and its linker ignores
# -exported_symbols_list, so these land in the export trie of a zig build: libc++'s
# replaceable operator new/delete (weak) and the linker's ___dso_handle/__mh_dylib_header.
# A build with Apple's toolchain links libc++.1.dylib and exports none of them. Only these
# exact names are set aside; any other extra or missing symbol fails.
zig_artifacts='__Znwm __ZnwmSt11align_val_t __Znam __ZnamSt11align_val_t
__ZdlPv __ZdlPvm __ZdlPvSt11align_val_t __ZdlPvmSt11align_val_t
__ZdaPv __ZdaPvm __ZdaPvSt11align_val_t __ZdaPvmSt11align_val_t ___dso_handle __mh_dylib_header'

quiet() {  # quiet LOG CMD...: CMD's output goes to LOG, and its tail to the screen if it fails
  local log=$1
  shift
  "$@" >"$log" 2>&1 || { tail -n 40 "$log"; return 1; }
}

check_arch() {  # FILES... are installed and their Mach-O headers say CPU
  local want=$1 f
  shift
  for f in "$@"; do
    [ -f "$f" ] || { echo "$f not installed"; return 1; }
    llvm-objdump --macho --private-header "$f" | grep -q "MH_MAGIC_64 *$want " ||
      { llvm-objdump --macho --private-header "$f"; return 1; }
  done
  echo "$want"
}

check_exports() {  # the export trie is docs/symbols.txt, each with Mach-O's leading '_'
  local lib=$1 work=$2 extra missing
  sed 's/#.*//' docs/symbols.txt | awk 'NF {print "_" $1}' | LC_ALL=C sort >"$work/want"
  llvm-objdump --macho --exports-trie "$lib" | awk '/^0x/ {print $2}' | LC_ALL=C sort >"$work/have"
  printf '%s\n' $zig_artifacts | LC_ALL=C sort >"$work/artifacts"
  extra=$(LC_ALL=C comm -13 "$work/want" "$work/have" | LC_ALL=C comm -23 - "$work/artifacts")
  missing=$(LC_ALL=C comm -23 "$work/want" "$work/have")
  [ -z "$extra" ] || echo "exported but not in docs/symbols.txt:" $extra
  [ -z "$missing" ] || echo "in docs/symbols.txt but not exported:" $missing
  [ -z "$extra$missing" ] || return 1
  echo "$(wc -l <"$work/want") symbols; $(LC_ALL=C comm -12 "$work/have" "$work/artifacts" | wc -l) zig libc++/linker symbols set aside"
}

check_linkage() {  # only libSystem (and the C++ runtime); frameworks come through dlopen
  local lib=$1 used bad
  # --dylibs-used lists the dylib's own id first; every other line is a load command.
  used=$(llvm-objdump --macho --dylibs-used "$lib" | tail -n +3 | awk '{print $1}')
  bad=$(printf '%s\n' "$used" | grep -vxE '/usr/lib/(libSystem\.B|libc\+\+\.1|libc\+\+abi)\.dylib')
  [ -z "$bad" ] || { echo "links more than libSystem and the C++ runtime:" $bad; return 1; }
  printf '%s\n' "$used" | grep -qx /usr/lib/libSystem.B.dylib || { echo "no libSystem in:" $used; return 1; }
  llvm-nm -u "$lib" | grep -qx '_dlopen' || { echo "imports no _dlopen: how are kperf/kperfdata loaded?"; return 1; }
  echo $used "; dlopen imported"
}

check_install_name() {
  local id
  id=$(llvm-objdump --macho --dylib-id "$1" | sed -n 2p)
  [ "$id" = "@rpath/libkpc.$so.dylib" ] || { echo "install name '$id', expected @rpath/libkpc.$so.dylib"; return 1; }
  echo "$id"
}

check_tool() {  # kpc loads libkpc through @rpath and finds it in ../lib
  local kpc=$1 used rpaths
  used=$(llvm-objdump --macho --dylibs-used "$kpc" | tail -n +2 | awk '{print $1}' | LC_ALL=C sort | tr '\n' ' ')
  [ "$used" = "/usr/lib/libSystem.B.dylib @rpath/libkpc.$so.dylib " ] ||
    { echo "kpc loads: $used(expected libSystem and @rpath/libkpc.$so.dylib)"; return 1; }
  rpaths=$(llvm-objdump --macho --private-headers "$kpc" | awk '/cmd LC_RPATH/ {r=1} r && /path / {print $2; r=0}')
  [ "$rpaths" = "@loader_path/../lib" ] || { echo "kpc's LC_RPATH: '$rpaths', expected @loader_path/../lib"; return 1; }
  echo "$used; LC_RPATH $rpaths"
}

check_headers() {  # every public C header alone, strict C99, against the installed copy
  local target=$1 include=$2 work=$3 h n=0
  for h in include/kpc/*.h; do
    h=$(basename "$h")
    printf '#include <kpc/%s>\nint main(void) { return 0; }\n' "$h" >"$work/h.c"
    "$zig" cc -target "$target" -std=c99 -pedantic -Werror -Wall -Wextra \
      -I"$include" -c "$work/h.c" -o "$work/h.o" || { echo "kpc/$h is not strict C99 for $target"; return 1; }
    n=$((n + 1))
  done
  echo "$n headers"
}

for arch in "${archs[@]}"; do
  case $arch in
    arm64) target=aarch64-macos.11.0 cpu=ARM64 ;;
    x86_64) target=x86_64-macos.11.0 cpu=X86_64 ;;
    *) die "unknown arch '$arch' (arm64 or x86_64)" ;;
  esac
  build=$root/build-macos-$arch
  stage=$build/stage
  work=$build/checks
  mkdir -p "$work"
  # shellcheck disable=SC2016  # $1 and $2 below are the inner sh's own arguments
  if ! check "$arch: configure" quiet "$work/configure.log" cmake -S . -B "$build" -G Ninja \
        -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/zig-macos-$arch.cmake" -DKPC_ZIG="$zig" \
        -DBUILD_SHARED_LIBS=ON -DKPC_WERROR=ON -DKPC_BUILD_CLI=ON -DKPC_BUILD_TESTS=OFF \
        -DBUILD_TESTING=OFF -DKPC_BUILD_BINDINGS=OFF -DKPC_BUILD_BENCH=OFF ||
     ! check "$arch: build libkpc and kpc, warnings as errors" \
        quiet "$work/build.log" cmake --build "$build" -j"$jobs" --target kpc kpc_cli ||
     ! check "$arch: install to $stage" \
        quiet "$work/install.log" sh -c 'rm -rf "$2" && cmake --install "$1" --prefix "$2"' sh "$build" "$stage"; then
    failed=$((failed + 1))
    echo "FAIL  $arch: the installed files were not checked (see above)"
    continue
  fi
  lib=$stage/lib/libkpc.$so.dylib
  check "$arch: installed libkpc.$so.dylib and kpc are $cpu Mach-O" check_arch $cpu "$lib" "$stage/bin/kpc"
  check "$arch: exports exactly docs/symbols.txt" check_exports "$lib" "$work"
  check "$arch: links only libSystem/C++ runtime, frameworks dlopen'ed" check_linkage "$lib"
  check "$arch: installed install name" check_install_name "$lib"
  check "$arch: kpc loads @rpath/libkpc from ../lib" check_tool "$stage/bin/kpc"
  # Apple Silicon runs only signed code; install rewrote kpc's rpath after the linker signed it.
  if [ "$arch" = arm64 ]; then
    check "$arch: ad-hoc signatures intact after install" \
      python3 scripts/ci/macho_signature.py "$stage/lib/libkpc.$so.dylib" "$stage/bin/kpc"
  fi
  check "$arch: public headers compile as strict C99 ($target)" check_headers "$target" "$stage/include" "$work"
done

echo "macos-build: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
