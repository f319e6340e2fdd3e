#!/bin/sh
# Install everything the rig needs on a Debian 12 host and fetch the guest's
# arm64 busybox into the cache. Idempotent; needs root only when something
# is missing.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

pkgs="build-essential bc bison flex libssl-dev libelf-dev cpio kmod xz-utils
rsync perl python3 sparse shellcheck busybox-static device-tree-compiler
qemu-system-arm gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
linux-source-6.12"

missing=""
for p in $pkgs; do
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done

bbdir="$OVPOP_CACHE/busybox-arm64"
if [ -z "$missing" ] && [ -x "$bbdir/bin/busybox" ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	die "deps: missing:$missing; run as root (apt-get needs it)"
fi

export DEBIAN_FRONTEND=noninteractive
# The guest's busybox is an arm64 package: add the architecture so apt can
# download it, but never install it (it would replace the host's /bin/busybox).
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
fi
log "deps: apt-get update"
apt-get update -q >/dev/null
if [ -n "$missing" ]; then
	log "deps: installing:$missing"
	# shellcheck disable=SC2086 # the package list is split on purpose
	apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
if [ ! -x "$bbdir/bin/busybox" ]; then
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q busybox-static:arm64 >/dev/null)
	rm -rf "$bbdir"
	mkdir -p "$bbdir/bin"
	dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$tmp/x"
	cp "$tmp/x/bin/busybox" "$bbdir/bin/busybox"
	rm -rf "$tmp"
	log "deps: arm64 busybox in $bbdir"
fi
