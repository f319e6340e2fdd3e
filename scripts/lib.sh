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

# The results of the scripts that report cases (test.sh, test-pair.sh,
# test-pkg.sh), counted one way:
#   ovpop_pass NAME               prints "ok   NAME"
#   ovpop_fail NAME [DETAIL...]   prints "FAIL NAME", then each DETAIL
#                                 (non-empty) indented
#   ovpop_count P F [S]           adds cases counted elsewhere (a guest's)
#   ovpop_summary                 prints "N passed, N failed[, N skipped]",
#                                 a script's last line
ovpop_passed=0
ovpop_failed=0
ovpop_skipped=0

ovpop_pass() {
	ovpop_passed=$((ovpop_passed + 1))
	printf 'ok   %s\n' "$1"
}

ovpop_fail() {
	ovpop_failed=$((ovpop_failed + 1))
	printf 'FAIL %s\n' "$1"
	shift
	for _d in "$@"; do
		[ -z "$_d" ] || printf '%s\n' "$_d" | sed 's/^/     /'
	done
}

ovpop_count() {
	ovpop_passed=$((ovpop_passed + $1))
	ovpop_failed=$((ovpop_failed + $2))
	ovpop_skipped=$((ovpop_skipped + ${3:-0}))
}

ovpop_summary() {
	if [ "$ovpop_skipped" -eq 0 ]; then
		printf '%s passed, %s failed\n' "$ovpop_passed" "$ovpop_failed"
	else
		printf '%s passed, %s failed, %s skipped\n' "$ovpop_passed" \
			"$ovpop_failed" "$ovpop_skipped"
	fi
}

# ovpop_arch [ARCH]: everything that depends on the guest's architecture, in
# one place. ARCH (default $OVPOP_ARCH, default arm64) is the kernel's ARCH=
# name: arm64, or arm (32-bit, armhf userspace; "armhf" is accepted for it).
# Sets and exports OVPOP_ARCH (normalised), and sets:
#   ovpop_cross          CROSS_COMPILE prefix
#   ovpop_pkgs           Debian packages of that cross toolchain (with the
#                        libc the guest tools link statically)
#   ovpop_kconfig        the .config symbol a kernel of this arch has
#   ovpop_image_target   the make target of the boot image
#   ovpop_image          the boot image, relative to the kernel build dir
#   ovpop_debarch        Debian architecture of the guest's busybox
#   ovpop_busybox        where deps.sh keeps that busybox
#   ovpop_base           the base tree: dts/$ovpop_base.dts -> stage dtb
#   ovpop_qemu           the QEMU binary
#   OVPOP_QEMU_MACHINE, OVPOP_QEMU_OPTS   the machine it boots
#   ovpop_qemu_io        QEMU's options for the console on stdio
#   ovpop_console        the guest's console device (console=)
#   ovpop_off            how the guest's init ends the boot: poweroff, or
#                        reboot where the machine cannot power off (QEMU's
#                        -no-reboot turns the reset into QEMU's exit)
#   ovpop_labels         the labels build.sh requires in the base tree
#   ovpop_scenario       the guest scenario a board lane runs (test-pair.sh)
# OVPOP_BOARD (default virt) picks the machine: "virt", "zc702" (32-bit
# ARM only: QEMU's xilinx-zynq-a9 with the kernel's own
# ZC702 board tree dts/zc702.dts, one CPU: QEMU 7.2 models no second one
# there), "raspi3b" (arm64: QEMU's raspi3b, the kernel's Pi 3B tree) or
# "vexpress-a15" (32-bit ARM: QEMU's vexpress-a15, the kernel's V2P-CA15
# tree); the board trees are wrapped by dts/BOARD.dts.
# For virt, gen-base-dts.sh dumps the DT of exactly the machine qemu.sh
# boots: change the QEMU lines and regenerate dts/ together. No NIC: the
# tests need none, and QEMU's default one wants efi-virtio.rom. Both virt
# machines have the same memory map and GIC interrupts, so overlays/ serves
# both.
# The kernel version the board lanes and the modules lane boot (without a
# variant, the virt lanes' kernel): kernel.sh adds scripts/configs/
# ARCH-boards.config and ARCH-modules.config to it.
ovpop_board_kernel=6.12

# A kernel report in a log line (extended regular expression): what the
# kernel-log scan of test-pair.sh fails a boot on unless a test announced
# it, and what of-unittest.sh counts. Exported: awk reads it from ENVIRON
# (-v would take its backslashes for escapes).
OVPOP_REPORT_ERE='WARNING:|BUG:|Oops|Unable to handle|Kernel panic|refcount_t|kmemleak: [0-9]+ new|memory leak|unreferenced object|UBSAN|KASAN|ODEBUG|possible circular locking|suspicious RCU|of_node_put|INFO: task|\[ cut here \]'
export OVPOP_REPORT_ERE

ovpop_arch() {
	OVPOP_ARCH=${1:-${OVPOP_ARCH:-arm64}}
	case $OVPOP_ARCH in
	arm64)
		ovpop_cross=aarch64-linux-gnu-
		ovpop_pkgs="gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross"
		ovpop_kconfig=CONFIG_ARM64
		ovpop_image_target=Image
		ovpop_debarch=arm64
		ovpop_qemu=qemu-system-aarch64
		OVPOP_QEMU_OPTS="-cpu cortex-a57 -smp 2 -m 512 -nic none"
		;;
	arm | armhf)
		OVPOP_ARCH=arm
		ovpop_cross=arm-linux-gnueabihf-
		ovpop_pkgs="gcc-arm-linux-gnueabihf binutils-arm-linux-gnueabihf libc6-dev-armhf-cross"
		ovpop_kconfig=CONFIG_ARM
		ovpop_image_target=zImage
		ovpop_debarch=armhf
		ovpop_qemu=qemu-system-arm
		OVPOP_QEMU_OPTS="-cpu cortex-a15 -smp 2 -m 512 -nic none"
		;;
	*) die "unsupported arch '$OVPOP_ARCH' (OVPOP_ARCH: arm64 or arm)" ;;
	esac
	export OVPOP_ARCH
	ovpop_image=arch/$OVPOP_ARCH/boot/$ovpop_image_target
	ovpop_busybox=$OVPOP_CACHE/busybox-$ovpop_debarch/bin/busybox
	OVPOP_QEMU_MACHINE=virt
	ovpop_base=virt-$OVPOP_ARCH
	ovpop_qemu_io=-nographic
	ovpop_console=ttyAMA0
	ovpop_off=poweroff
	ovpop_labels="gic apb_pclk uart0"
	ovpop_scenario=
	case ${OVPOP_BOARD:-virt} in
	virt) ;;
	zc702)
		[ "$OVPOP_ARCH" = arm ] || die "board zc702 is 32-bit ARM (OVPOP_ARCH=arm)"
		OVPOP_QEMU_MACHINE=xilinx-zynq-a9
		OVPOP_QEMU_OPTS="-m 512 -nic none"
		ovpop_base=zc702
		# the board's console is its second UART (ttyPS0: serial0 in
		# the tree's aliases), QEMU's second serial port
		ovpop_qemu_io="-display none -serial null -serial mon:stdio"
		ovpop_console=ttyPS0
		ovpop_off=reboot
		ovpop_scenario=scenario-fpga
		;;
	raspi3b)
		[ "$OVPOP_ARCH" = arm64 ] || die "board raspi3b is arm64 (OVPOP_ARCH=arm64)"
		OVPOP_QEMU_MACHINE=raspi3b
		# the machine has its four cores and 1 GiB, nothing else
		OVPOP_QEMU_OPTS="-m 1G -nic none"
		ovpop_base=raspi3b
		# the console is the mini UART, QEMU's second serial port:
		# ttyS1 from serial1 in the tree's aliases (the 8250 core
		# takes the line from the alias); the first is the PL011
		# (uart0), which the tests disable
		ovpop_qemu_io="-display none -serial null -serial mon:stdio"
		ovpop_console=ttyS1
		ovpop_off=reboot
		ovpop_labels="gpio uart0 uart1"
		ovpop_scenario=scenario-board-raspi3b
		;;
	vexpress-a15)
		[ "$OVPOP_ARCH" = arm ] || die "board vexpress-a15 is 32-bit ARM (OVPOP_ARCH=arm)"
		OVPOP_QEMU_MACHINE=vexpress-a15
		# the motherboard's AACI codec gets a silent backend (QEMU
		# 7.2 tries every host audio system and says so otherwise)
		OVPOP_QEMU_OPTS="-smp 2 -m 512 -nic none -audiodev none,id=snd"
		ovpop_base=vexpress-a15
		ovpop_qemu_io=-nographic
		# reset through the configuration bus (POWER_RESET_VEXPRESS),
		# the way the other boards end
		ovpop_off=reboot
		ovpop_labels="gic smbclk v2m_serial0"
		ovpop_scenario=scenario-board-vexpress-a15
		;;
	*) die "unsupported board '$OVPOP_BOARD' (OVPOP_BOARD: virt, zc702, raspi3b or vexpress-a15)" ;;
	esac
}

# ovpop_module_copy DEST: copies what kbuild reads to build the module, the
# test modules and the samples (Kbuild, Makefile, dkms.conf and their
# sources, no build products) into DEST, emptied first; prints DEST. Lanes
# that build at the same time (and people working in the clone) then never
# write each other's objects: kbuild builds M= in place.
ovpop_module_copy() {
	_repo=$(cd "$(dirname "$0")/.." && pwd)
	rm -rf "$1"
	mkdir -p "$1" || return 1
	(cd "$_repo" && find Kbuild Makefile dkms.conf module tests/modules tests/kfpga \
		tests/kunit samples -type f \( -name Kbuild -o -name Makefile -o \
		-name dkms.conf -o -name '*.[chS]' -o -name '*.dtso' \) \
		! -name '*.mod.c' -print | cpio -pdm --quiet "$1") || return 1
	printf '%s\n' "$1"
}

# ovpop_prepare WORK [ARCH [VERSION]]: what test.sh, demo.sh and shell.sh do
# before booting: deps, kernel (VERSION, default $OVPOP_KERNEL, default
# 6.12; config variant $OVPOP_VARIANT, e.g. debug, default none) for ARCH
# (default $OVPOP_ARCH, default arm64; exported for the qemu.sh that
# follows), modules + overlays + stage in WORK/stage, initramfs
# WORK/initramfs.gz. Sets kdir, image, dtb, initrd.
ovpop_prepare() {
	_here=$(cd "$(dirname "$0")" && pwd)
	ovpop_arch "${2:-}"
	"$_here/deps.sh" "$OVPOP_ARCH" || die "deps.sh failed"
	kdir=$("$_here/kernel.sh" "${3:-${OVPOP_KERNEL:-6.12}}" "$OVPOP_ARCH" \
		"${OVPOP_VARIANT:-}" | tail -n 1)
	[ -d "$kdir" ] || die "kernel.sh failed"
	"$_here/build.sh" "$kdir" "$1/stage" || die "build.sh failed"
	"$_here/initramfs.sh" "$1/stage" "$1/initramfs.gz" || die "initramfs.sh failed"
	image="$kdir/$ovpop_image"
	dtb="$1/stage/ovpop/$ovpop_base.dtb"
	initrd="$1/initramfs.gz"
}

# ovpop_workdir: creates OVPOP_OUT, or a new $OVPOP_CACHE/runs/<timestamp>/,
# and prints its absolute path; fails if it cannot.
ovpop_workdir() {
	_w=${OVPOP_OUT:-$OVPOP_CACHE/runs/$(date +%Y%m%d-%H%M%S)-$$}
	mkdir -p "$_w" || die "cannot create $_w"
	(cd "$_w" && pwd)
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
