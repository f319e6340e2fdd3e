#!/bin/sh
# Runs the in-guest tests and prints the top level of the KTAP output of
# tests/CONTRACT.md (each script prints its own nested subtest).
#
#   run.sh test      load ovpop.ko and the test drivers; run scenario-*.sh,
#                    iface-*.sh, badinput.sh, fuzz.sh, kunit.sh, autoload.sh
#                    (skipped but with ovpop_lane=modules) and, last
#                    (it may lock the kernel down), security.sh. With
#                    ovpop_stress=N on the kernel command line also
#                    stress-*.sh (N add-on board cycles); with
#                    ovpop_lane=debug (the debug lane) faults.sh (not with
#                    ovpop_faults=0 on the command line; =full: every k)
#                    and, after them, scenario-fpga.sh (moved there, see
#                    below) and kmemleak.sh, but not the scripts of
#                    debug_skip (below)
#   run.sh control   load ovpop.ko with populate=0 and the test drivers; run
#                    only scenario-*.sh (each is expected to fail there)
#   run.sh demo      load ovpop.ko; run mode-demo.sh (a walk-through for people)
#   run.sh bench     run mode-bench.sh (scripts/bench.sh reads its lines)
#   run.sh boot      nothing: the boot is the test (scripts/of-unittest.sh
#                    reads the kernel's OF unittest from the log)
#
# scenario-board-BOARD.sh runs only on BOARD (ovpop_board=BOARD on the
# command line, set by scripts/qemu.sh on a board; virt without it).
#
# Exits 0 iff every script passed.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

mode=${1:-test}
# ov.sh: the control boot does not wait once a script has failed
OV_MODE=$mode
export OV_MODE

lane=
only=
board=virt
faults=1
OV_STRESS=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	ovpop_lane=debug) lane=debug ;;
	ovpop_lane=modules) lane=modules ;;
	ovpop_only=*) only=",${arg#ovpop_only=}," ;; # for quick work
	ovpop_board=*) board=${arg#ovpop_board=} ;;
	ovpop_stress=*) OV_STRESS=${arg#ovpop_stress=} ;;
	ovpop_faults=0) faults= ;;
	esac
done
export OV_STRESS	# stress-cycles.sh: how many cycles
OV_LANE=$lane		# ov.sh: ov_check_slab; autoload.sh
export OV_LANE
# seconds per script; the debug lane's kernel is several times slower
tmo=300
[ "$lane" = debug ] && tmo=1800

case $mode in
test)
	params=
	# The debug lane runs scenario-fpga.sh late, before kmemleak.sh: the
	# kernel's fpga-bridge.c keeps a bridge's mutex locked while a region
	# holds the bridge (__fpga_bridge_get()'s mutex_trylock() until
	# fpga_bridge_put()), across the return to user space, and lockdep
	# reports that once and then turns itself off for the rest of the boot.
	# It leaves out the scripts that check what a result looks like (the
	# other lanes run them on every kernel: debug_skip) and runs those
	# whose paths end in an unwind, a release, a refusal or a race, where
	# KASAN, kmemleak and lockdep find what the other lanes cannot. The
	# paths the skipped ones take are populate and depopulate of nodes
	# that scenario-addon-board.sh and the stress tests run here too:
	# ovl (a user space tool), the dtbocfg dialect's words, "path",
	# "target", the devices report and stats (their reads race removals in
	# iface-unpriv-race.sh), the sample board (the API's paths:
	# iface-consumer.sh), the rtc (iface-removal.sh applies it), and the
	# nested and existing buses. scenario-fpga.sh is in the list only to
	# keep it out of its usual place: it runs late (above).
	debug_skip="scenario-existing-bus scenario-nested-buses scenario-rtc"
	debug_skip="$debug_skip scenario-fpga iface-dialect iface-ovl iface-path"
	debug_skip="$debug_skip iface-report iface-sample-board iface-stats"
	debug_skip="$debug_skip iface-target"
	scen=
	iface=
	for s in "$here"/scenario-*.sh "$here"/iface-*.sh; do
		n=${s##*/}
		if [ "$lane" = debug ]; then
			case " $debug_skip " in
			*" ${n%.sh} "*) continue ;;
			esac
		fi
		case $n in
		scenario-*) scen="$scen $s" ;;
		*) iface="$iface $s" ;;
		esac
	done
	scripts="$scen $iface $here/badinput.sh"
	scripts="$scripts $here/fuzz.sh $here/kunit.sh $here/autoload.sh"
	[ -n "$OV_STRESS" ] && scripts="$scripts $here/stress-*.sh"
	[ "$lane" = debug ] && [ -n "$faults" ] && scripts="$scripts $here/faults.sh"
	[ "$lane" = debug ] && scripts="$scripts $here/scenario-fpga.sh $here/kmemleak.sh"
	scripts="$scripts $here/security.sh"
	;;
control)
	params=populate=0
	scripts="$here/scenario-*.sh"
	;;
demo)
	params=
	scripts=
	;;
bench)
	exec sh "$here/mode-bench.sh"
	;;
boot)
	echo "KTAP version 1"
	echo "1..0"
	exit 0
	;;
*)
	echo "usage: run.sh test|control|demo|bench|boot" >&2
	exit 2
	;;
esac

# Load the modules; a failure shows as the "setup" subtest (counted as
# one of the scripts).
setup() {
	ktap_begin setup
	# shellcheck disable=SC2086 # params is empty or one word
	ktap_check insmod_ovpop insmod "$OVPOP_DIR/ovpop.ko" $params
	ktap_check insmod_ovpop_testdrv insmod "$OVPOP_DIR/modules/ovpop_testdrv.ko"
	# the kernel's FPGA stack, where it was built from the kernel's
	# sources (Kbuild), and the test manager (scenario-fpga.sh)
	if [ -f "$OVPOP_DIR/modules/fpga-mgr.ko" ]; then
		for m in fpga-mgr fpga-bridge fpga-region of-fpga-region ovpop_fpga; do
			ktap_check "insmod_$(echo "$m" | tr - _)" insmod "$OVPOP_DIR/modules/$m.ko"
		done
		# the Zynq-7000's own manager, built where the kernel has
		# the platform (dts/zc702.dts has a region on it)
		if [ -f "$OVPOP_DIR/modules/zynq-fpga.ko" ]; then
			ktap_check insmod_zynq_fpga insmod "$OVPOP_DIR/modules/zynq-fpga.ko"
		fi
	fi
	ktap_check configfs_overlays [ -d "$OV_CFS" ]
	if [ "$lane" = debug ] && [ -w /sys/kernel/debug/kmemleak ]; then
		# what leaked before the tests is not theirs (kmemleak.sh)
		ktap_check kmemleak_baseline sh -c \
			'echo scan >/sys/kernel/debug/kmemleak && echo clear >/sys/kernel/debug/kmemleak'
	fi
	ktap_end
}

if [ "$mode" = demo ]; then
	echo "KTAP version 1"
	echo "1..2"
	if (setup); then
		echo "ok 1 setup"
	else
		echo "not ok 1 setup"
	fi
	sh "$here/mode-demo.sh"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "ok 2 demo"
	else
		echo "not ok 2 demo # exit status $rc"
	fi
	exit "$rc"
fi

list=
n=1
for s in $scripts; do
	[ -f "$s" ] || continue
	name=${s##*/}
	# a board's scenario runs on that board only (ovpop_board=, set by
	# scripts/qemu.sh; virt without it)
	case $name in
	scenario-board-*) [ "$name" = "scenario-board-$board.sh" ] || continue ;;
	esac
	case $only in
	'' | *",${name%.sh},"*) ;;
	*) continue ;;
	esac
	list="$list $s"
	n=$((n + 1))
done

echo "KTAP version 1"
echo "1..$n"
rc=0
errf=$OV_TMP/ovpop-run.stderr

if (setup) 2>"$errf"; then
	echo "ok 1 setup"
else
	echo "not ok 1 setup"
	rc=1
fi
sed 's/^/# setup: /' "$errf"

i=1
for s in $list; do
	i=$((i + 1))
	name=${s##*/}
	name=${name%.sh}
	t0=$(cut -d' ' -f1 /proc/uptime)
	timeout "$tmo" sh "$s" 2>"$errf"
	src=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	if [ "$src" -eq 0 ]; then
		echo "ok $i $name"
	else
		echo "not ok $i $name"
		rc=1
	fi
	sed "s/^/# $name: /" "$errf"
	awk -v a="$t0" -v b="$t1" -v n="$name" \
		'BEGIN { printf "# %s: %.1f s\n", n, b - a }'
	if [ "$src" -gt 1 ]; then
		echo "# $name: exit status $src (a timeout after ${tmo}s kills it)"
	fi
	# A script must leave no overlay applied; clean up for the next one.
	for left in "$OV_CFS"/*; do
		[ -e "$left" ] || continue
		echo "# $name: left configfs item ${left##*/} behind"
		ov_remove_all
		break
	done
done
rm -f "$errf"
exit "$rc"
