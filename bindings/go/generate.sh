#!/bin/sh
# Regenerates the committed SWIG output of the Go binding:
#   bindings/go/internal/ckpc/ckpc.go       (cgo package ckpc, gofmt'ed)
#   bindings/go/internal/ckpc/ckpc_wrap.c   (C wrappers cgo compiles with the package)
# from bindings/swig/go/kpc_go.i (which %includes the shared bindings/swig/kpc.i).
#
# usage: bindings/go/generate.sh [OUTPUT_DIR]
#   OUTPUT_DIR defaults to bindings/go/internal/ckpc; the CTest test go_generated_fresh
#   passes a temporary directory and compares the result with the committed files.
# Needs: swig 4.1 (Debian package swig) and gofmt (Debian package golang-go).
# Run it after changing kpc_go.i, kpc.i or a public header, and commit the result.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$here/internal/ckpc}
SWIG=${SWIG:-swig}
GOFMT=${GOFMT:-gofmt}

if ! command -v "$SWIG" >/dev/null 2>&1; then
    echo "generate.sh: swig not found; install it with: sudo apt-get install swig" >&2
    exit 1
fi
if ! command -v "$GOFMT" >/dev/null 2>&1; then
    echo "generate.sh: gofmt not found; install it with: sudo apt-get install golang-go" >&2
    exit 1
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
# Run from the .i's directory with relative names so that nothing machine-specific (paths)
# ends up in the output.
cd "$root/bindings/swig/go"
"$SWIG" -go -cgo -intgosize 64 -I../../../include \
    -outdir "$out" -o "$out/ckpc_wrap.c" kpc_go.i
"$GOFMT" -w "$out/ckpc.go"
echo "generated $out/ckpc.go and $out/ckpc_wrap.c with $("$SWIG" -version | sed -n 's/^SWIG Version //p')"
