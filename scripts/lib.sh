# shellcheck shell=sh
# shellcheck disable=SC2034 # sets variables for the scripts that source it
# Common helpers for the rig scripts. Sourced, not run.

# Where built kernels, busybox and other downloads are kept: outside the clone.
: "${OVPOP_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/ovpop}"
export OVPOP_CACHE

log() {
	printf '%s\n' "$*" >&2
}

die() {
	log "$*"
	exit 1
}

# The QEMU machine the guest runs on. gen-base-dts.sh dumps the DT of exactly
# this machine and qemu.sh boots it: change them together (regenerate dts/).
# No NIC: the tests need none, and QEMU's default one wants efi-virtio.rom.
OVPOP_QEMU_MACHINE=virt
OVPOP_QEMU_OPTS="-cpu cortex-a57 -smp 2 -m 512 -nic none"

# ovpop_prepare WORK: what test.sh, demo.sh and shell.sh do before booting:
# deps, kernel (OVPOP_KERNEL, default 6.12), modules + overlays + stage in
# WORK/stage, initramfs WORK/initramfs.gz. Sets kdir, image, dtb, initrd.
ovpop_prepare() {
	_here=$(cd "$(dirname "$0")" && pwd)
	"$_here/deps.sh" || die "deps.sh failed"
	kdir=$("$_here/kernel.sh" "${OVPOP_KERNEL:-6.12}" arm64 | tail -n 1)
	[ -d "$kdir" ] || die "kernel.sh failed"
	"$_here/build.sh" "$kdir" "$1/stage" || die "build.sh failed"
	"$_here/initramfs.sh" "$1/stage" "$1/initramfs.gz" || die "initramfs.sh failed"
	image="$kdir/arch/arm64/boot/Image"
	dtb="$1/stage/ovpop/virt-arm64.dtb"
	initrd="$1/initramfs.gz"
}

# ovpop_workdir: OVPOP_OUT, or a new $OVPOP_CACHE/runs/<timestamp>/.
ovpop_workdir() {
	if [ -n "${OVPOP_OUT:-}" ]; then
		printf '%s\n' "$OVPOP_OUT"
	else
		printf '%s\n' "$OVPOP_CACHE/runs/$(date +%Y%m%d-%H%M%S)-$$"
	fi
}

# ovpop_path_tool NAME: absolute path of NAME in PATH. Calling a tool by its
# path skips busybox sh's applets (busybox cpio, for one, lacks --owner).
ovpop_path_tool() {
	_ifs=$IFS
	IFS=:
	for _d in $PATH; do
		if [ -n "$_d" ] && [ -f "$_d/$1" ] && [ -x "$_d/$1" ]; then
			IFS=$_ifs
			printf '%s\n' "$_d/$1"
			return 0
		fi
	done
	IFS=$_ifs
	return 1
}
