#!/usr/bin/env bash
# Runs the README's two commands (scripts/demo.sh, then scripts/test.sh) in a fresh, minimal
# Debian 12 root, as a new user's machine would: everything they need comes from the
# project's own install steps. CI runs this (.ci/run); docs/testing.md says how to run it on
# a laptop.
#
#   scripts/ci/fresh-debian.sh [ROOT]      (as root; ROOT defaults to a new directory in /var/tmp)
#
# From the machine it runs on, the root gets only what its network needs (the CA bundle, the
# apt sources, /etc/pip.conf) and, bind-mounted read-only, what a user brings and Debian cannot
# give: the Swift toolchain at /opt/swift. The clone is the committed HEAD of this checkout.
# KPC_FRESH_COMMANDS (default "scripts/demo.sh scripts/test.sh") chooses what runs inside.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD

if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-debian: needs root (debootstrap, chroot and mounts); run it with sudo" >&2
  exit 1
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

own_root=0
if [ $# -ge 1 ]; then
  root=$1
else
  root=$(mktemp -d /var/tmp/kpc-fresh-debian.XXXXXX)
  # mktemp's 0700 would become the root's "/": no unprivileged test user could reach anything.
  chmod 755 "$root"
  own_root=1
fi
mounts=()
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount -l "${mounts[$i]}" 2>/dev/null || true
  done
  # Only a root this script made is removed, and only once nothing is mounted in it (a bind
  # mount shares the file system of what it shows, so --one-file-system alone is no guard).
  if [ "$own_root" -eq 1 ] && [ -z "${KPC_FRESH_KEEP:-}" ] && ! grep -q " $root/" /proc/mounts; then
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT

mirror=http://deb.debian.org/debian
start=$(date +%s)
echo "fresh-debian: debootstrap --variant=minbase bookworm $root"
if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1; then
  tail -n 20 "$root.debootstrap.log" >&2
  echo "fresh-debian: debootstrap failed (log above): is the Debian mirror reachable?" >&2
  exit 1
fi
rm -f "$root.debootstrap.log"
echo "fresh-debian: root made in $(( $(date +%s) - start )) s"

# What this machine's network needs: the proxy's CA bundle, the apt sources and pip's settings.
# The bundle goes in twice: as the bundle, for what runs before Debian's ca-certificates
# package is installed, and as a local CA, which that package's update-ca-certificates keeps
# when it rebuilds the bundle (the proxy's CA is in this machine's bundle only).
mkdir -p "$root/etc/ssl/certs" "$root/etc/apt" "$root/usr/local/share/ca-certificates"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
cp /etc/ssl/certs/ca-certificates.crt "$root/usr/local/share/ca-certificates/host-ca-bundle.crt"
# The host's sources replace debootstrap's (both would name the same archive twice), and its
# settings of how apt reaches the network (Acquire::...) come along.
rm -f "$root/etc/apt/sources.list"
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/"
{ grep -l '^Acquire::' /etc/apt/apt.conf.d/* 2>/dev/null || true; } | xargs -r cp -t "$root/etc/apt/apt.conf.d/"
if [ -d /etc/apt/sources.list.d ]; then
  mkdir -p "$root/etc/apt/sources.list.d"
  find /etc/apt/sources.list.d -maxdepth 1 \( -name '*.list' -o -name '*.sources' \) \
    -exec cp {} "$root/etc/apt/sources.list.d/" \;
fi
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/pip.conf"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

mount_into() {  # mount_into <target in root> <mount args...>
  mkdir -p "$root$1"
  mount "${@:2}" "$root$1"
  mounts+=("$root$1")
}
mount_into /proc -t proc proc
mount_into /sys --rbind /sys
mount_into /dev --rbind /dev
mount_into /tmp -t tmpfs tmpfs
if [ -d /opt/swift ]; then
  mount_into /opt/swift --bind /opt/swift
  mount -o remount,bind,ro "$root/opt/swift"
fi

# The clone: what is committed here, as CI and a new user see it. Not under /root: some
# tests run kpc as an unprivileged user, who must be able to reach the build tree.
git clone -q --no-hardlinks "$src" "$root/work/libkpc"

commands=${KPC_FRESH_COMMANDS:-scripts/demo.sh scripts/test.sh}
out=$(mktemp)
status=0
for cmd in $commands; do
  echo
  echo "===== fresh Debian 12: $cmd ====="
  t0=$(date +%s)
  # A clean environment, as on a new machine: none of this machine's tool settings leak in.
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      CI="${CI:-}" KPC_FUZZ_SECONDS="${KPC_FUZZ_SECONDS:-}" KPC_STAGES="${KPC_STAGES:-}" \
      /bin/bash -c "cd /work/libkpc && $cmd" 2>&1 | tee "$out" || status=$?
  echo "fresh-debian: $cmd took $(( $(date +%s) - t0 )) s, exit status $status"
  [ $status -eq 0 ] || break
done
# The last command's closing line (test.sh's totals) stays the log's last line.
tail -n 1 "$out"
rm -f "$out"
exit $status
