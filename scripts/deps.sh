#!/bin/sh
# Install everything the rig needs on a Debian 12 host and fetch the guest's
# busybox into the cache. Idempotent; needs root only when something is
# missing.
#
#   scripts/deps.sh [ARCH...]       default: $OVPOP_ARCH, default arm64
#
# For each ARCH (lib.sh's ovpop_arch: arm64, arm): its cross toolchain, and
# its Debian busybox-static, downloaded (never installed) into the cache; the
# architecture is added to dpkg's for that and for scripts/fdt-tools.sh.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[ $# -gt 0 ] || set -- "${OVPOP_ARCH:-arm64}"

pkgs="build-essential bc bison flex libssl-dev libelf-dev cpio kmod xz-utils
rsync perl python3 sparse shellcheck busybox-static device-tree-compiler
qemu-system-arm linux-source-6.1 linux-source-6.12 gnuplot-nox dkms libfdt-dev"
debarchs=""
for a in "$@"; do
	ovpop_arch "$a"
	pkgs="$pkgs $ovpop_pkgs"
	case " $debarchs " in
	*" $ovpop_debarch "*) ;;
	*) debarchs="$debarchs $ovpop_debarch" ;;
	esac
done

missing=""
for p in $pkgs; do
	case " $missing " in
	*" $p "*) continue ;;
	esac
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
nobb=""
noarch=""
for d in $debarchs; do
	[ -x "$OVPOP_CACHE/busybox-$d/bin/busybox" ] || nobb="$nobb $d"
	# scripts/fdt-tools.sh downloads the guest's device-tree-compiler
	[ "$d" = "$(dpkg --print-architecture)" ] ||
		dpkg --print-foreign-architectures | grep -qx "$d" || noarch="$noarch $d"
done

if [ -z "$missing" ] && [ -z "$nobb" ] && [ -z "$noarch" ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	die "deps: missing:$missing${nobb:+ busybox for:$nobb}${noarch:+ dpkg architecture:$noarch}; run as root (apt-get and dpkg need it)"
fi

export DEBIAN_FRONTEND=noninteractive
# The guest's busybox is a package of the guest's architecture: add that
# architecture so apt can download it, but never install it (it would
# replace the host's /bin/busybox).
for d in $nobb $noarch; do
	if ! dpkg --print-foreign-architectures | grep -qx "$d"; then
		dpkg --add-architecture "$d"
	fi
done
log "deps: apt-get update"
# A mirror in the middle of a sync fails an index now and then ("File has
# unexpected size"): try again, then go on with the lists apt has (apt-get
# install then names what it cannot find).
n=1
until apt-get update -q -o Acquire::Retries=3 >/dev/null; do
	if [ "$n" -ge 3 ]; then
		log "deps: apt-get update failed $n times; going on with the lists it has"
		break
	fi
	log "deps: apt-get update failed; trying again in 30 s"
	sleep 30
	n=$((n + 1))
done
if [ -n "$missing" ]; then
	log "deps: installing:$missing"
	# shellcheck disable=SC2086 # the package list is split on purpose
	apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
for d in $nobb; do
	bbdir="$OVPOP_CACHE/busybox-$d"
	tmp=$(mktemp -d)
	chmod 755 "$tmp" # apt's _apt user downloads into it
	(cd "$tmp" && apt-get download -q "busybox-static:$d" >/dev/null)
	rm -rf "$bbdir"
	mkdir -p "$bbdir/bin"
	dpkg-deb -x "$tmp"/busybox-static_*_"$d".deb "$tmp/x"
	cp "$tmp/x/bin/busybox" "$bbdir/bin/busybox"
	rm -rf "$tmp"
	log "deps: $d busybox in $bbdir"
done
