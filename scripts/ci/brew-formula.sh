#!/bin/sh
# Homebrew: builds packaging/homebrew/kpc.rb from source and runs its `test do` block.
# The formula has no release yet, so this makes one from the checkout: a `git archive`
# tarball of HEAD, named into the formula with file:// and its sha256, exactly as a release
# adds url + sha256 (packaging/homebrew/README.md).
#   macOS (Homebrew present): a throw-away tap, `brew install --build-from-source`,
#          `brew test`, then uninstall and untap;
#   Linux: the same generated formula, built from the unpacked tarball, through
#          tests/homebrew/formula_shim.rb (the stand-in for Homebrew's Formula DSL).
# usage: scripts/ci/brew-formula.sh WORK_DIR
set -eu
[ $# -eq 1 ] || { echo "usage: $0 WORK_DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$1
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)

version=$(sed -n 's/^#define KP_VERSION_STRING "\(.*\)"$/\1/p' "$root/include/kpc/version.h")
tarball="$work/libkpc-$version.tar.gz"
git -C "$root" archive --prefix="libkpc-$version/" -o "$tarball" HEAD
if command -v shasum >/dev/null; then sum=$(shasum -a 256 "$tarball"); else sum=$(sha256sum "$tarball"); fi
sum=${sum%% *}
formula="$work/kpc.rb"
awk -v url="file://$tarball" -v sum="$sum" '
  { print }
  /^  homepage / { printf "  url \"%s\"\n  sha256 \"%s\"\n", url, sum; done = 1 }
  END { if (!done) exit 1 }' "$root/packaging/homebrew/kpc.rb" >"$formula" ||
  { echo "brew-formula: no homepage line in kpc.rb to put the url after" >&2; exit 1; }
grep -n '^  \(url\|sha256\) ' "$formula"

if [ "$(uname -s)" = Darwin ]; then
  export HOMEBREW_NO_AUTO_UPDATE=1 HOMEBREW_NO_INSTALL_CLEANUP=1
  tap=kpc-ci/local
  brew untap "$tap" >/dev/null 2>&1 || true
  brew tap-new --no-git "$tap"
  cp "$formula" "$(brew --repository "$tap")/Formula/kpc.rb"
  status=0
  { brew install --build-from-source "$tap/kpc" && brew test "$tap/kpc"; } || status=$?
  brew uninstall --force "$tap/kpc" >/dev/null 2>&1 || true
  brew untap "$tap" >/dev/null 2>&1 || true
  exit "$status"
fi
command -v ruby >/dev/null || { echo "brew-formula: ruby not found (scripts/install-deps.sh)" >&2; exit 1; }
# Unpacked outside any git checkout, so the shim copies all of it, as Homebrew would.
unpacked=$(mktemp -d "${TMPDIR:-/tmp}/kpc-formula-src.XXXXXX")
trap 'rm -rf "$unpacked"' EXIT
tar -xzf "$tarball" -C "$unpacked"
ruby "$root/tests/homebrew/formula_shim.rb" "$formula" "$unpacked/libkpc-$version" "$work/shim"
