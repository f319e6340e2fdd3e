#!/bin/sh
# Build (or find in the cache) the guest kernel.
#
#   scripts/kernel.sh [VERSION] [ARCH] [VARIANT]   defaults: 6.12 arm64
#
# ARCH: arm64 or arm (ovpop_arch in lib.sh), from the argument, not from
# OVPOP_ARCH. VARIANT (e.g. debug) merges scripts/configs/ARCH-VARIANT.config
# on top of the arch's fragment. VARIANT "patched" is the kernel without a
# variant with the overlay core's series (patches/VERSION/*.patch, in
# order) applied to a copy of the source, linux-source-VERSION-patched;
# "patched-V" is variant V with the series.
# Unpacks the source tarball (scripts/kernel-source.sh: Debian's
# linux-source-VERSION) once into $OVPOP_CACHE/src/,
# configures allnoconfig + scripts/configs/ARCH-virt.config (for the board
# and modules lanes' version without a variant, + ARCH-boards.config and
# ARCH-modules.config, where they exist), checks every
# symbol of the fragment, and builds out of tree into
# $OVPOP_CACHE/kernels/VERSION-ARCH[-VARIANT]-HASH/ (HASH covers the fragments, the base
# config, the kernel source and the toolchain). That directory is what
# out-of-tree modules build against (make -C DIR M=...). Progress goes to
# stderr; the last stdout line is the build directory.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

version=${1:-6.12}
base=allnoconfig

ovpop_arch "${2:-arm64}" # arm64 or arm (lib.sh)
arch=$OVPOP_ARCH
cross=$ovpop_cross
image=$ovpop_image

variant=${3:-}
frag="$here/configs/$arch-virt.config"
[ -f "$frag" ] || die "kernel: no config fragment $frag"
frags=$frag
name="$version-$arch"
patches=
case $variant in
patched | patched-*)
	patches=$(find "$(dirname "$here")/patches/$version" -maxdepth 1 \
		-name '*.patch' 2>/dev/null | sort)
	[ -n "$patches" ] || die "kernel: no patches/$version/*.patch for variant $variant"
	name="$name-patched"
	variant=${variant#patched}
	variant=${variant#-}
	;;
esac
if [ -n "$variant" ]; then
	vfrag="$here/configs/$arch-$variant.config"
	[ -f "$vfrag" ] || die "kernel: no config fragment $vfrag for variant $variant"
	frags="$frag $vfrag"
	name="$name-$variant"
elif [ "$version" = "$ovpop_board_kernel" ]; then
	# the kernel the board lanes and the modules lane boot (lib.sh)
	# carries their support
	for f in boards modules; do
		[ ! -f "$here/configs/$arch-$f.config" ] ||
			frags="$frags $here/configs/$arch-$f.config"
	done
fi
tarball=$("$here/kernel-source.sh" "$version" | tail -n 1)
[ -f "$tarball" ] || die "kernel: no source tarball for $version"
command -v "${cross}gcc" >/dev/null || die "kernel: ${cross}gcc missing (run scripts/deps.sh)"

mkdir -p "$OVPOP_CACHE/src" "$OVPOP_CACHE/kernels"

src="$OVPOP_CACHE/src/linux-source-$version"
srcstamp="$src.unpacked"
# the tree built: the unpacked source, or its patched copy
bsrc=$src
[ -z "$patches" ] || bsrc="$src-patched"
# Identify the tarball by size and mtime: a new linux-source package means
# a new unpack (and, through the hash below, a new build).
tarid="$(wc -c <"$tarball" | tr -d ' ') $(date -r "$tarball" +%s)"

# patch_code: the series without its commit messages (git format-patch
# files from their first "diff --git"; any other patch whole), what the
# hashes below cover: a message edited rebuilds nothing
patch_code() {
	for _p in $patches; do
		if grep -q '^diff --git ' "$_p"; then
			sed -n '/^diff --git /,$p' "$_p"
		else
			cat "$_p"
		fi
	done
}

# cache_key: sets out (the build directory) and stamp, from the unpacked
# source, the fragments and the toolchain
cache_key() {
	kver=$(sed -n -E 's/^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION) = *//p' \
		"$src/Makefile" | tr '\n' '.')
	hash=$({
		echo "ovpop-kernel-recipe 1"
		echo "base $base"
		echo "arch $arch"
		echo "kernel $kver"
		echo "tarball $tarid"
		"${cross}gcc" --version | head -n 1
		# shellcheck disable=SC2086 # a list of files
		cat $frags
		[ -z "$patches" ] || patch_code
	} | sha256sum | cut -c1-12)
	out="$OVPOP_CACHE/kernels/$name-$hash"
	stamp="$out/.ovpop-built"
}

# Built already: no need to wait for a build of another variant
if [ -f "$srcstamp" ] && [ "$(cat "$srcstamp")" = "$tarid" ]; then
	cache_key
	if [ -f "$stamp" ]; then
		printf '%s\n' "$out"
		exit 0
	fi
fi

# One unpack and build at a time per version (others of that version wait,
# then find it cached); other versions go on. The holder may be building
# another config of this version (the debug lane's, for 20 minutes), and
# the lock is not handed over in order: a waiter whose own kernel is built
# meanwhile (by the holder before, or by a build that went first) takes it
# from the cache at once instead of waiting its turn.
lock="$OVPOP_CACHE/kernels/.lock-$version"
exec 9>"$lock"
if ! flock -n 9; then
	log "kernel: another build holds $lock; waiting"
	while ! flock -n 9; do
		if [ -f "$srcstamp" ] && [ "$(cat "$srcstamp")" = "$tarid" ]; then
			cache_key
			if [ -f "$stamp" ]; then
				printf '%s\n' "$out"
				exit 0
			fi
		fi
		sleep 2
	done
fi

# --- unpack -----------------------------------------------------------------

if [ ! -f "$srcstamp" ] || [ "$(cat "$srcstamp")" != "$tarid" ]; then
	ok=no
	if [ -d "$src" ] && [ ! -f "$srcstamp" ]; then
		# Unpacked by someone else (or interrupted): accept it only if
		# every path of the tarball is there.
		log "kernel: checking the existing $src against $tarball"
		missing=$(tar -tJf "$tarball" | while IFS= read -r p; do
			[ -e "$OVPOP_CACHE/src/$p" ] || [ -L "$OVPOP_CACHE/src/$p" ] ||
				printf '%s\n' "$p"
		done | head -n 5)
		[ -z "$missing" ] && ok=yes
	fi
	if [ "$ok" = no ]; then
		log "kernel: unpacking $tarball"
		tmp="$OVPOP_CACHE/src/.unpack.$$"
		rm -rf "$tmp" "$src"
		mkdir -p "$tmp"
		tar -xJf "$tarball" -C "$tmp"
		[ -d "$tmp/linux-source-$version" ] ||
			die "kernel: $tarball has no linux-source-$version/"
		mv "$tmp/linux-source-$version" "$src"
		rmdir "$tmp"
	fi
	printf '%s\n' "$tarid" >"$srcstamp"
fi

# --- the patched copy -------------------------------------------------------
# Hard links to the unpacked tree; each file a patch touches is copied
# first, so the unpacked tree stays as it is.
if [ -n "$patches" ]; then
	pstamp="$bsrc.patched"
	series=$({
		printf '%s\n' "$tarid"
		patch_code
	} | sha256sum | cut -c1-12)
	if [ ! -f "$pstamp" ] || [ "$(cat "$pstamp")" != "$series" ]; then
		log "kernel: applying $(echo "$patches" | wc -l) patch(es) to a copy of $src"
		rm -f "$pstamp"
		rm -rf "$bsrc"
		cp -al "$src" "$bsrc"
		# shellcheck disable=SC2086 # a list of files
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' $patches | sort -u |
			while IFS= read -r f; do
				[ -f "$bsrc/$f" ] || continue
				cp "$bsrc/$f" "$bsrc/$f.ovpop" && mv "$bsrc/$f.ovpop" "$bsrc/$f"
			done
		for p in $patches; do
			patch -s -p1 --batch --forward --fuzz=0 -d "$bsrc" <"$p" ||
				die "kernel: $p does not apply to $version"
		done
		printf '%s\n' "$series" >"$pstamp"
	fi
fi

# --- cache key --------------------------------------------------------------
cache_key

if [ -f "$stamp" ]; then
	printf '%s\n' "$out"
	exit 0
fi

# --- configure --------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"
buildlog="$out/build.log"
: >"$buildlog"
kmake() {
	make -C "$bsrc" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" "$@"
}

kname=$(printf '%s' "$kver" | sed 's/\.*$//')
log "kernel: $kname ($arch${variant:+, $variant}) -> $out"
log "kernel: full log in $buildlog"
fail() {
	log "kernel: $1; last lines of $buildlog:"
	tail -n 40 "$buildlog" >&2
	exit 1
}
kmake "$base" >>"$buildlog" 2>&1 || fail "make $base failed"
# shellcheck disable=SC2086 # a list of files
cat $frags >"$out/ovpop.config"
(cd "$out" && "$bsrc/scripts/kconfig/merge_config.sh" -m -O "$out" \
	"$out/.config" "$out/ovpop.config") >>"$buildlog" 2>&1 ||
	fail "merge_config.sh failed"
kmake olddefconfig >>"$buildlog" 2>&1 || fail "make olddefconfig failed"

# Every symbol of the fragments must have the value asked for (the last
# one given: a variant overrides the base).
awk '
/^CONFIG_[A-Za-z0-9_]*=/ { k = $0; sub(/=.*/, "", k) }
/^# CONFIG_[A-Za-z0-9_]* is not set/ { k = $2 }
k != "" { if (!(k in v)) ord[++n] = k; v[k] = $0; k = "" }
END { for (i = 1; i <= n; i++) print v[ord[i]] }
' "$out/ovpop.config" >"$out/ovpop.wanted"
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		sym=${line%%=*}
		want=$line
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		want=$line
		;;
	*) continue ;;
	esac
	got=$(grep -E "^$sym=|^# $sym is not set" "$out/.config" || true)
	if [ "$want" = "# $sym is not set" ] && [ -z "$got" ]; then
		continue # not set and not even visible: fine
	fi
	if [ "$got" != "$want" ]; then
		log "kernel: config: asked '$want', got '${got:-<absent>}'"
		bad=$((bad + 1))
	fi
done <"$out/ovpop.wanted"
[ "$bad" -eq 0 ] || die "kernel: $bad config symbol(s) not as asked; fix $frags (see $out/.config)"

# --- build ------------------------------------------------------------------
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
# make itself in the background (not a subshell), so that $! is make.
make -C "$bsrc" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" -j"$jobs" \
	"$ovpop_image_target" modules >>"$buildlog" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; exit 130' INT TERM HUP
n=0
while kill -0 "$pid" 2>/dev/null; do
	sleep 1
	n=$((n + 1))
	if [ $((n % 30)) -eq 0 ]; then
		last=$(grep -E '^  (CC|LD|AR|AS|OBJCOPY|GEN)' "$buildlog" | tail -n 1 | sed 's/^ *//')
		log "kernel: $(($(date +%s) - start))s ${last:-...}"
	fi
done
rc=0
wait "$pid" || rc=$?
trap - INT TERM HUP
[ "$rc" -eq 0 ] || fail "build failed (make exit $rc)"

[ -f "$out/$image" ] || fail "no $image after the build"
[ -f "$out/Module.symvers" ] || fail "no Module.symvers after the build"
grep -q '^CONFIG_MODULES=y' "$out/.config" || fail "CONFIG_MODULES is off"
secs=$(($(date +%s) - start))
log "kernel: built in ${secs}s: $out/$image"
printf 'kernel %s\narch %s\nseconds %s\nimage %s\n' "$kname" "$arch" "$secs" "$image" \
	>"$stamp"
printf '%s\n' "$out"
