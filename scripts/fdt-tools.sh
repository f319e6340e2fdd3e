#!/bin/sh
# Fetch the device-tree-compiler tools (dtc, fdtget, fdtput, fdtoverlay) of
# the guest's architecture, with the shared libraries and dynamic loader they
# need, for tools/ovl in the guest (a static busybox initramfs).
#
#   scripts/fdt-tools.sh [ARCH]      ARCH: arm64 (default $OVPOP_ARCH) or arm
#
# The last stdout line is a directory laid out like the guest's root
# (usr/bin/{dtc,fdtget,fdtput,fdtoverlay}, lib/<triplet>/*.so.*, the loader
# at its PT_INTERP path): $OVPOP_CACHE/fdt-tools/<version>-<debarch>/root.
# scripts/build.sh copies it into the stage. Progress goes to stderr.
#
# The files come from Debian's binary packages device-tree-compiler, libfdt1,
# libyaml-0-2 and libc6 of that architecture, downloaded with apt-get
# download (never installed; scripts/deps.sh adds the architecture to dpkg),
# and only the libraries the tools need are kept (readelf's NEEDED entries,
# followed). Why not static builds: the rig reaches Debian's binary packages
# only (apt-get source fails), and the kernel's scripts/dtc carries fdtget.c
# and fdtput.c from 2012, which no longer build against its util.c and lack
# fdtput -d. A build for the current candidate version is reused;
# OVPOP_FDT_TOOLS_OFFLINE=1 reuses any cached one without asking apt.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[ $# -le 1 ] || die "usage: $0 [ARCH]"
ovpop_arch "${1:-}"
debarch=$ovpop_debarch
cross=$ovpop_cross
triplet=${cross%-}
top="$OVPOP_CACHE/fdt-tools"
tools="dtc fdtget fdtput fdtoverlay"
pkgs="device-tree-compiler libfdt1 libyaml-0-2 libc6"

# have_tools DIR: the tree in DIR/root has every tool
have_tools() {
	for _t in $tools; do
		[ -x "$1/root/usr/bin/$_t" ] || return 1
	done
	[ -f "$1/SOURCE" ]
}

mkdir -p "$top"
if [ "${OVPOP_FDT_TOOLS_OFFLINE:-0}" = 1 ]; then
	for d in "$top"/*-"$debarch"; do
		if [ -d "$d" ] && have_tools "$d"; then
			printf '%s\n' "$d/root"
			exit 0
		fi
	done
	die "fdt-tools: OVPOP_FDT_TOOLS_OFFLINE=1 and nothing cached for $debarch in $top"
fi

ver=$(apt-cache policy "device-tree-compiler:$debarch" 2>/dev/null |
	sed -n 's/^ *Candidate: *//p')
case $ver in
'' | '(none)')
	die "fdt-tools: apt knows no device-tree-compiler:$debarch; run scripts/deps.sh $OVPOP_ARCH (it adds the architecture)"
	;;
esac
out="$top/$(printf '%s' "$ver" | tr -c 'A-Za-z0-9.+~-' '_')-$debarch"
if have_tools "$out"; then
	printf '%s\n' "$out/root"
	exit 0
fi

exec 9>"$top/.lock"
if ! flock -n 9; then
	log "fdt-tools: another fetch holds $top/.lock; waiting"
	flock 9
fi
if have_tools "$out"; then
	printf '%s\n' "$out/root"
	exit 0
fi
# By path: busybox sh would run its own dpkg-deb applet.
dpkgdeb=$(ovpop_path_tool dpkg-deb) || die "fdt-tools: dpkg-deb missing"
readelf=${cross}readelf
command -v "$readelf" >/dev/null || die "fdt-tools: $readelf missing; run scripts/deps.sh $OVPOP_ARCH"

tmp="$top/fetch.$$"
rm -rf "$tmp"
mkdir -p "$tmp/x"
chmod 755 "$tmp" # apt's _apt user downloads into it
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP
log "fdt-tools: downloading $pkgs ($debarch)"
set --
for p in $pkgs; do
	set -- "$@" "$p:$debarch"
done
(cd "$tmp" && apt-get download -q "$@") >"$tmp/download.log" 2>&1 || {
	cat "$tmp/download.log" >&2
	die "fdt-tools: apt-get download $* failed"
}
for deb in "$tmp"/*.deb; do
	"$dpkgdeb" -x "$deb" "$tmp/x" || die "fdt-tools: cannot extract $deb"
done

root="$out.new/root"
rm -rf "$out.new"
mkdir -p "$root/usr/bin" "$root/lib/$triplet"
for t in $tools; do
	[ -f "$tmp/x/usr/bin/$t" ] || die "fdt-tools: device-tree-compiler:$debarch has no /usr/bin/$t"
	install -m 0755 "$tmp/x/usr/bin/$t" "$root/usr/bin/$t"
done

# The libraries the tools need, and theirs: NEEDED entries, followed.
interp=$("$readelf" -l "$root/usr/bin/dtc" |
	sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
[ -n "$interp" ] || die "fdt-tools: no program interpreter in dtc"
todo=$(for t in $tools; do printf '%s\n' "$root/usr/bin/$t"; done)
done_libs=" "
while [ -n "$todo" ]; do
	next=
	for f in $todo; do
		for lib in $("$readelf" -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			case $done_libs in *" $lib "*) continue ;; esac
			done_libs="$done_libs$lib "
			src=
			for dir in "lib/$triplet" "usr/lib/$triplet"; do
				[ -e "$tmp/x/$dir/$lib" ] && src="$tmp/x/$dir/$lib" && break
			done
			[ -n "$src" ] || die "fdt-tools: $lib (needed by ${f##*/}) is in none of: $pkgs"
			cp -L "$src" "$root/lib/$triplet/$lib"
			next="$next $root/lib/$triplet/$lib"
		done
	done
	todo=$next
done
mkdir -p "$root$(dirname "$interp")"
cp -L "$tmp/x$interp" "$root$interp" 2>/dev/null ||
	cp -L "$tmp/x/lib/$triplet/${interp##*/}" "$root$interp" ||
	die "fdt-tools: the loader $interp is not in libc6:$debarch"

{
	printf 'Debian packages (%s), apt-get download:\n' "$debarch"
	for deb in "$tmp"/*.deb; do
		printf '  %s\n' "${deb##*/}"
	done
	printf 'libraries:%s\nloader: %s\n' "$done_libs" "$interp"
} >"$out.new/SOURCE"
rm -rf "$out"
mv "$out.new" "$out"
log "fdt-tools: device-tree-compiler $ver ($debarch) in $out/root"
printf '%s\n' "$out/root"
