#!/bin/sh
# Build the module, the test modules, the base device tree and the overlays
# against a kernel build directory, and lay out the guest filesystem
# (tests/CONTRACT.md, "Guest filesystem") in STAGE.
#
#   scripts/build.sh KDIR STAGE
#
# KDIR is what scripts/kernel.sh prints. STAGE is emptied and rebuilt (it must
# be new, empty, or a previous stage). Besides the guest files it holds
# /ovpop/virt-ARCH.dtb (dts/virt-ARCH.dts; with OVPOP_BOARD=BOARD
# /ovpop/BOARD.dtb from dts/BOARD.dts), the base tree QEMU boots with.
#
# OVPOP_ARCH: the guest's arch, arm64 (default) or arm (lib.sh); KDIR must
# be a kernel of that arch.
# OVPOP_MODULE_DIR: the directory built with M= (default: a copy of the
# repository's sources in a temporary directory, lib.sh's ovpop_module_copy).
# OVPOP_TIMING=y: ovpop/stats also sums the time of what it counts (the
# benchmark's build, Kbuild).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[ $# -eq 2 ] || die "usage: $0 KDIR STAGE"
kdir=$1
stage=$2
repo=$(dirname "$here")
moddir=${OVPOP_MODULE_DIR:-}
ovpop_arch
arch=$OVPOP_ARCH
cross=$ovpop_cross
busybox=$ovpop_busybox
base=$ovpop_base

[ -f "$kdir/Module.symvers" ] || die "build: $kdir is not a built kernel (no Module.symvers); run scripts/kernel.sh"
grep -q "^$ovpop_kconfig=y" "$kdir/.config" ||
	die "build: $kdir is not an $arch kernel (no $ovpop_kconfig=y; OVPOP_ARCH=$arch)"
[ -x "$busybox" ] || die "build: no $ovpop_debarch busybox at $busybox; run scripts/deps.sh $arch"

# --- stage directory ----------------------------------------------------------
marker=.ovpop-stage
if [ -e "$stage" ]; then
	[ -d "$stage" ] || die "build: $stage is not a directory"
	if [ -n "$(ls -A "$stage")" ] && [ ! -f "$stage/$marker" ]; then
		die "build: $stage is not empty and not a stage; refusing to clean it"
	fi
	rm -rf "$stage"
fi
mkdir -p "$stage"
stage=$(cd "$stage" && pwd)
: >"$stage/$marker"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$moddir" ]; then
	moddir=$(ovpop_module_copy "$tmp/src") || die "build: cannot copy the sources"
fi

# --- modules ------------------------------------------------------------------
[ -f "$moddir/Kbuild" ] || [ -f "$moddir/Makefile" ] || die "build: no Kbuild or Makefile in $moddir"
log "build: modules (M=$moddir)"
jobs=$(nproc 2>/dev/null || echo 2)
if ! make -C "$kdir" M="$moddir" ARCH="$arch" CROSS_COMPILE="$cross" \
	OVPOP_TESTS=y OVPOP_TIMING="${OVPOP_TIMING:-}" -j"$jobs" modules \
	>"$tmp/modules.log" 2>&1; then
	cat "$tmp/modules.log" >&2
	die "build: module build failed"
fi
# Compiler warnings are shown; the rest of kbuild's chatter is not.
grep -E 'warning:|error:|WARNING:' "$tmp/modules.log" >&2 || true

[ -f "$moddir/modules.order" ] || die "build: no modules.order in $moddir"
install -d -m 0755 "$stage/ovpop/modules"
nmod=0
# modules.order lists what this build made (stale .ko files are ignored).
while IFS= read -r o; do
	[ -n "$o" ] || continue
	# 6.12 writes absolute .o paths for M= builds, 6.1 absolute .ko paths
	o=${o%.o}
	o=${o%.ko}
	case $o in
	/*) ko=$o.ko ;;
	*) ko="$moddir/$o.ko" ;;
	esac
	[ -f "$ko" ] || die "build: $ko (from modules.order) missing"
	case ${ko##*/} in
	ovpop.ko) install -m 0644 "$ko" "$stage/ovpop/ovpop.ko" ;;
	*) install -m 0644 "$ko" "$stage/ovpop/modules/" ;;
	esac
	nmod=$((nmod + 1))
done <"$moddir/modules.order"
[ -f "$stage/ovpop/ovpop.ko" ] || log "build: WARNING: no ovpop.ko in modules.order"
log "build: $nmod module(s)"

# --- the kernel's own modules -----------------------------------------------------
# A kernel with drivers built as modules (6.12 arm64: arm64-modules.config)
# gets them, stripped, in /lib/modules/<kver>/ with the host depmod's
# modules.dep and modules.alias: the guest's /init loads them, or in the
# modules lane has mdev load them by MODALIAS (tests/guest/init).
if [ -s "$kdir/modules.order" ]; then
	kver=$(cat "$kdir/include/config/kernel.release")
	depmod=$(ovpop_path_tool depmod || command -v /sbin/depmod) ||
		die "build: depmod missing (kmod; scripts/deps.sh)"
	make -C "$kdir" ARCH="$arch" CROSS_COMPILE="$cross" INSTALL_MOD_PATH="$stage" \
		INSTALL_MOD_STRIP=1 DEPMOD=true modules_install >"$tmp/kmod.log" 2>&1 || {
		cat "$tmp/kmod.log" >&2
		die "build: make modules_install of $kdir failed"
	}
	rm -f "$stage/lib/modules/$kver/build" "$stage/lib/modules/$kver/source"
	"$depmod" -b "$stage" "$kver" || die "build: depmod -b $stage $kver failed"
	[ -s "$stage/lib/modules/$kver/modules.alias" ] ||
		die "build: depmod wrote no modules.alias for $kver"
	log "build: $(grep -c . "$kdir/modules.order") kernel module(s) in /lib/modules/$kver"
fi

# --- device trees ---------------------------------------------------------------
# cpp, then dtc -@ (tests/CONTRACT.md). dtc_one SRC OUT LOG
# The include path also has the kernel's DT directories: a board's base
# tree includes the kernel's own board tree (dts/zc702.dts; in xilinx/
# since 6.5, in arch/arm/boot/dts/ before; arm64's Raspberry Pi trees
# include the 32-bit ones through the "arm/" prefix of include-prefixes/).
ksrc="$kdir/source"
[ -d "$ksrc/drivers/of" ] || ksrc=$kdir
dtc_one() {
	cpp -nostdinc -undef -x assembler-with-cpp -D__DTS__ -I "$repo/dts" \
		-I "$ksrc/arch/$arch/boot/dts/xilinx" -I "$ksrc/arch/$arch/boot/dts" \
		-I "$ksrc/scripts/dtc/include-prefixes" -I "$ksrc/include" \
		-o "$tmp/pp.dts" "$1" >"$3" 2>&1 || return 2
	# shellcheck disable=SC2046 # a list of options
	dtc -@ $(dtc_off "$1") -I dts -O dtb -o "$2" "$tmp/pp.dts" >>"$3" 2>&1 ||
		return 1
}

# dtc_off SRC: the dtc checks SRC turns off, each on a line of its own
# with the reason: "// ovpop-dtc: -Wno-CHECK (why)"; only -Wno-* counts
dtc_off() {
	sed -n 's|^[[:space:]]*//[[:space:]]*ovpop-dtc:[[:space:]]*||p' "$1" |
		grep -oE -- '^-Wno-[a-z_]+' || true
}

# dtc_must SRC OUT LABEL: compile, show dtc's messages; a failure counts
dtc_must() {
	_rc=0
	dtc_one "$1" "$2" "$tmp/dtc.log" || _rc=1
	sed "s|^|build: $3: |" "$tmp/dtc.log" >&2
	[ "$_rc" -eq 0 ] && return 0
	log "build: ERROR: $1 does not compile"
	errors=$((errors + 1))
	return 1
}

install -d -m 0755 "$stage/ovpop/overlays/broken" "$stage/ovpop/overlays/boards" \
	"$stage/lib/firmware/ovpop"
dtc_one "$repo/dts/$base.dts" "$stage/ovpop/$base.dtb" "$tmp/dtc.log" || {
	cat "$tmp/dtc.log" >&2
	die "build: dts/$base.dts does not compile"
}
for l in $ovpop_labels; do
	fdtget "$stage/ovpop/$base.dtb" /__symbols__ "$l" >/dev/null 2>&1 ||
		die "build: label $l missing from the base tree's __symbols__"
done

errors=0
nov=0
for src in "$repo"/overlays/*.dtso; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .dtso)
	if dtc_must "$src" "$stage/ovpop/overlays/$name.dtbo" "$name"; then
		install -m 0644 "$stage/ovpop/overlays/$name.dtbo" "$stage/lib/firmware/ovpop/"
		nov=$((nov + 1))
	fi
done
# The board lanes' overlays (overlays/boards/BOARD-*.dtso) target their
# board's labels and paths; every lane compiles them, the board's boots
# them (tests/guest/scenario-board-BOARD.sh).
for src in "$repo"/overlays/boards/*.dtso; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .dtso)
	dtc_must "$src" "$stage/ovpop/overlays/boards/$name.dtbo" "boards/$name" &&
		nov=$((nov + 1))
done

# A broken overlay that dtc itself must reject says so in its header, as a
# line "// ovpop-broken: dtc-rejects" (or " * ovpop-broken: dtc-rejects"
# inside a block comment). It is kept as a note, not a blob.
nbr=0
for src in "$repo"/overlays/broken/*.dtso; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .dtso)
	rejects=no
	grep -Eq '^[[:space:]]*(//|/?\*)[[:space:]]*ovpop-broken:[[:space:]]*dtc-rejects[[:space:]]*(\*/)?[[:space:]]*$' \
		"$src" && rejects=yes
	out="$stage/ovpop/overlays/broken/$name.dtbo"
	rc=0
	dtc_one "$src" "$out" "$tmp/dtc.log" || rc=$?
	if [ "$rc" -eq 2 ]; then
		sed "s|^|build: broken/$name: |" "$tmp/dtc.log" >&2
		log "build: ERROR: overlays/broken/$name.dtso fails in cpp"
		errors=$((errors + 1))
	elif [ "$rejects" = yes ] && [ "$rc" -eq 0 ]; then
		log "build: ERROR: overlays/broken/$name.dtso is marked dtc-rejects but compiles"
		rm -f "$out"
		errors=$((errors + 1))
	elif [ "$rejects" = yes ]; then
		rm -f "$out"
		{
			echo "overlays/broken/$name.dtso is rejected by dtc (expected):"
			cat "$tmp/dtc.log"
		} >"$stage/ovpop/overlays/broken/$name.dtc-rejects"
		nbr=$((nbr + 1))
	elif [ "$rc" -ne 0 ]; then
		sed "s|^|build: broken/$name: |" "$tmp/dtc.log" >&2
		log "build: ERROR: overlays/broken/$name.dtso does not compile (mark it '// ovpop-broken: dtc-rejects' if that is the point)"
		errors=$((errors + 1))
	else
		sed "s|^|build: broken/$name: |" "$tmp/dtc.log" >&2
		nbr=$((nbr + 1))
	fi
done
# The kernel's own negative overlays (drivers/of/unittest-data), as they
# are: against our base their labels do not resolve, which is also an input
# the loader must refuse cleanly.
nkb=0
install -d -m 0755 "$stage/ovpop/overlays/kernel-bad"
for src in "$ksrc"/drivers/of/unittest-data/overlay_bad_*.dtso; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .dtso)
	dtc_must "$src" "$stage/ovpop/overlays/kernel-bad/$name.dtbo" "kernel-bad/$name" &&
		nkb=$((nkb + 1))
done
[ "$errors" -eq 0 ] || die "build: $errors overlay error(s)"
log "build: base tree, $nov overlay(s), $nbr broken overlay(s), $nkb of the kernel's"

# --- guest tools ----------------------------------------------------------------
install -d -m 0755 "$stage/ovpop/bin"
"${cross}gcc" -static -O2 -Wall -Wextra -Werror \
	-o "$stage/ovpop/bin/ovpop-tool" "$repo"/tests/tools/*.c \
	>"$tmp/tool.log" 2>&1 || {
	cat "$tmp/tool.log" >&2
	die "build: tests/tools/*.c do not build (${cross}gcc, static)"
}

# --- guest filesystem -------------------------------------------------------------
for d in bin sbin usr/bin usr/sbin dev proc sys tmp run root etc; do
	install -d -m 0755 "$stage/$d"
done
chmod 1777 "$stage/tmp"
chmod 0700 "$stage/root"
install -m 0755 "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh" # the rest: busybox --install -s in /init
install -m 0755 "$repo/tests/guest/init" "$stage/init"
install -d -m 0755 "$stage/ovpop/tests"
for t in "$repo"/tests/guest/*.sh; do
	[ -f "$t" ] || continue
	install -m 0755 "$t" "$stage/ovpop/tests/"
done
[ -f "$stage/ovpop/tests/run.sh" ] || log "build: WARNING: no tests/guest/run.sh (the guest will report 1..0)"
# The device-tree tools (scripts/fdt-tools.sh) and ovl, on PATH.
fdtroot=$("$here/fdt-tools.sh" "$arch" | tail -n 1)
[ -d "$fdtroot" ] || die "build: scripts/fdt-tools.sh $arch failed"
cp -R "$fdtroot/." "$stage/"
install -m 0755 "$repo/tools/ovl" "$stage/usr/bin/ovl"
# ovl's parameter engine, static, with the guest kernel's own libfdt sources
make -s -C "$repo/tools/ovl-params" CC="${cross}gcc" CFLAGS="-O2 -Werror" \
	LDFLAGS=-static LIBFDT_SRC="$kdir/source/scripts/dtc/libfdt" \
	OUT="$tmp/ovl-params" >"$tmp/ovl-params.log" 2>&1 || {
	cat "$tmp/ovl-params.log" >&2
	die "build: tools/ovl-params does not build (${cross}gcc, static)"
}
install -m 0755 "$tmp/ovl-params" "$stage/usr/bin/ovl-params"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\n' >"$stage/etc/group"
chmod 0644 "$stage/etc/passwd" "$stage/etc/group"
log "build: stage in $stage"
