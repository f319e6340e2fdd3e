#!/bin/sh
# Pack a stage (scripts/build.sh) into the guest's initramfs: a gzip'ed newc
# cpio, every file owned by root, modes as in the stage. No fakeroot needed:
# the kernel adds /dev/console from its built-in initramfs.
#
#   scripts/initramfs.sh STAGE OUT
#
# OVPOP_ARCH (arm64, default, or arm): the stage must have been built for it.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[ $# -eq 2 ] || die "usage: $0 STAGE OUT"
stage=$1
out=$2
[ -f "$stage/.ovpop-stage" ] || die "initramfs: $stage is not a stage (scripts/build.sh makes one)"
[ -x "$stage/init" ] || die "initramfs: $stage/init missing or not executable"
ovpop_arch
[ -f "$stage/ovpop/$ovpop_base.dtb" ] ||
	die "initramfs: $stage was not built for $OVPOP_ARCH (no ovpop/$ovpop_base.dtb); set OVPOP_ARCH"

# GNU cpio (--owner); by path, so that busybox sh does not pick its applet.
cpio=$(ovpop_path_tool cpio) || die "initramfs: cpio missing (scripts/deps.sh)"
"$cpio" --help 2>&1 | grep -q -e '--owner' || die "initramfs: $cpio is not GNU cpio"

mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
# Sorted names, devices and inodes renumbered: the same stage gives the same
# archive (up to mtimes).
(
	cd "$stage"
	find . -mindepth 1 ! -name .ovpop-stage | LC_ALL=C sort |
		"$cpio" -o -H newc --owner=0:0 --reproducible --quiet
) | gzip -9 -n >"$tmp"
mv "$tmp" "$out"
trap - EXIT
log "initramfs: $out ($(wc -c <"$out" | tr -d ' ') bytes)"
