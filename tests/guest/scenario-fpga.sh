#!/bin/sh
# Scenario fpga: overlays on an FPGA region (dts/ovpop-fpga.dtsi) with the
# kernel's own FPGA stack (fpga-mgr, fpga-bridge, fpga-region,
# of-fpga-region, built from its sources; run.sh loads them) and the test
# manager tests/modules/ovpop_fpga.c, whose event list (debugfs) records the
# images it is given, its bridges' enables and disables and the devices
# added and deleted below the region.
# - overlays/fpga-full.dtso: the region's bridge disabled, the image (the
#   bytes of the firmware file) written and the bridge enabled again before
#   the first PL device is added; every PL device on the
#   right bus with its driver (the primecell an AMBA device), at the
#   address translated through the region's ranges; a GPIO controller of
#   the logic with an LED and a regulator driving its lines; the region's
#   static child untouched; removal deletes every PL device, children before
#   their parents and the region's children in the reverse order of their
#   creation, and then the bridge is disabled; a second apply programs
#   again;
# - refused: a missing image, the manager failing each step, the bridge
#   failing to enable after the image was written, an image and
#   external-fpga-config at once, a second image while one is applied: the
#   item unapplied with the cause in "error", no PL device, nothing left
#   registered with the OF core (the guard applied before can be removed),
#   and the next good apply works; the refused second image leaves the
#   applied one's bridge enabled and its region programmed;
# - overlays/fpga-external.dtso: nothing programmed, the PL device appears;
# - partial reconfiguration: overlays/fpga-pr-shell.dtso adds a PR region
#   and its freeze bridge (of-fpga-region and the test bridge bind to
#   them), overlays/fpga-pr-persona.dtso programs that region with
#   FPGA_MGR_PARTIAL_RECONFIG between its bridge's disable and enable, then
#   its device appears; the shell cannot be removed under it, a second
#   persona at once is refused and undoes nothing; removal, a second
#   persona, the shell's removal;
# - apply/remove cycles with memory flat.
# - where the board has it (dts/zc702.dts), the board's real manager: an
#   image through the region &fpga_devcfg on the Zynq's devcfg (the
#   kernel's zynq-fpga driver), which QEMU's devcfg model (7.2, Debian 12's)
#   does not program, it never sets PCFG_INIT: refused with the manager's
#   -ETIMEDOUT in "error", nothing applied. A QEMU that programs would
#   fail these checks: then this case is to change to a successful load.
# The region is the board's &fpga_full (dts/ovpop-fpga.dtsi on virt,
# dts/zc702.dts): its path from the tree's __symbols__, the addresses of
# its logic from its ranges.
# The kernel alone (control boot) makes the primecell a platform device and
# nothing below the PL's simple-bus.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

# symbol LABEL: the path of the base tree's node LABEL
symbol() {
	tr -d '\000' 2>/dev/null <"/proc/device-tree/__symbols__/$1"
}
region=$(symbol fpga_full)
# cells FILE: the big-endian cells of FILE, one number per line
cells() {
	od -An -tu1 -v "$1" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) {
		c = c * 256 + $i; if (++n % 4 == 0) { print c; c = 0 } } }'
}
# the start of the region's window: the parent address of its one
# ranges entry (child address, parent address, size, in the cells of the
# region and of its parent); empty if the entry is not that
pl_base=$(
	dt=/proc/device-tree
	ca=$(cells "$dt$region/#address-cells")
	cs=$(cells "$dt$region/#size-cells")
	pa=$(cells "$dt${region%/*}/#address-cells")
	cells "$dt$region/ranges" | awk -v ca="$ca" -v pa="$pa" -v cs="$cs" '
	NR > ca && NR <= ca + pa { a = a * 4294967296 + $1 }
	END { if (ca > 0 && pa > 0 && NR == ca + pa + cs) printf "%.0f", a }')
# (awk's %x stops at 31 bits; the shell's printf does not)
[ -z "$pl_base" ] || pl_base=$(printf '0x%x' "$pl_base")
# pl_res OFFSET: the resource of a test device of 4 KiB at OFFSET of the
# region's window, as ovpop_testdrv reports it
pl_res() {
	printf 'res=0x%x-0x%x' $((pl_base + $1)) $((pl_base + $1 + 0xfff))
}
ovs=$OVPOP_DIR/overlays
full=$ovs/fpga-full.dtbo
ev=/sys/kernel/debug/ovpop_fpga/events
fail=/sys/module/ovpop_fpga/parameters/fail_at
image=/lib/firmware/ovpop/fpga-full.bin
pr_image=/lib/firmware/ovpop/fpga-pr.bin
zynq_image=/lib/firmware/ovpop/fpga-zynq.bin
pr=$region/fpga-region@30000
snap=$OV_TMP/scenario-fpga.snap
out=$OV_TMP/scenario-fpga.out
# the PL devices of fpga-full, in the order of the tree
pl_nodes="$region/pl-test@0 $region/pl-cell@1000 $region/pl-bus@10000
$region/pl-bus@10000/test@0 $region/pl-bus@10000/test@1000
$region/pl-gpio@20000 $region/pl-leds $region/pl-vdd"
cycles=100
[ "${OV_LANE:-}" = debug ] && cycles=20

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	[ -w "$fail" ] && echo 0 >"$fail"
	ov_remove fpga-second fpga fpga-persona2 fpga-persona fpga-shell fpga-guard
	rm -f "$snap" "$out" "$image" "$pr_image" "$zynq_image"
}

# pl_line LINE: the last level the PL's GPIO controller was given for
# LINE (the event list's "gpio <dev> <line> <level>")
pl_line() {
	awk -v l="$1" '$3 == "gpio" && $5 == l { v = $6 } END { print v }' "$ev"
}

# pl_line_is LINE LEVEL: true if LINE's last level is LEVEL
# shellcheck disable=SC2317 # run by wait_until
pl_line_is() {
	[ "$(pl_line "$1")" = "$2" ]
}

# ev_clear: empties the event list
ev_clear() {
	echo clear >"$ev"
}

# ev_nodes FILE add|del: the nodes of the devices added (deleted), in order,
# on one line
ev_nodes() {
	awk -v what="$2" '$3 == what { printf "%s ", $6 }' "$1"
}

# ev_seq FILE: the events in order on one line, "program:FLAGS",
# "bridge:NODE:enable|disable", "fail:STEP", and "add" ("del") for a run of
# additions (deletions)
ev_seq() {
	awk '$3 == "program" { sub(/^flags=/, "", $6); t = "program:" $6 }
		$3 == "bridge" { t = "bridge:" $4 ":" $5 }
		$3 == "fail" { sub(/^step=/, "", $4); t = "fail:" $4 }
		$3 == "gpio" { next }
		$3 == "add" || $3 == "del" { t = $3; if (t == last) next }
		{ printf "%s ", t; last = t }' "$1"
}

# nregions: how many FPGA regions are registered
nregions() {
	set -- /sys/class/fpga_region/region*
	[ -e "$1" ] || set --
	echo $#
}

# manager_named NAME: the FPGA manager (its sysfs directory) called NAME
manager_named() {
	for m in /sys/class/fpga_manager/fpga*; do
		[ "$(cat "$m/name" 2>/dev/null)" = "$1" ] && echo "$m"
	done
}

# class_of_node CLASS PATH: the CLASS device (its name) whose parent is
# PATH's device
class_of_node() {
	for c in /sys/class/"$1"/*; do
		t=$(readlink "$c/device/of_node") || continue
		[ "${t#*/firmware/devicetree/base}" = "$2" ] && echo "${c##*/}"
	done
}

# ev_reverse LIST: LIST's words in the reverse order, on one line
ev_reverse() {
	echo "$1" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }'
}

# ev_parent_first LIST: the nodes of LIST (deletions, in order) deleted
# after one of their ancestors in LIST
ev_parent_first() {
	echo "$1" | awk '{
		for (i = 1; i <= NF; i++) {
			for (a in gone)
				if (index($i, a "/") == 1)
					printf "%s ", $i
			gone[$i] = 1
		}
	}'
}

# ev_top LIST: the nodes of LIST that are the region's children
ev_top() {
	echo "$1" | tr ' ' '\n' | grep "^$region/[^/]*\$" | tr '\n' ' '
}

# ev_sorted LIST: LIST's words sorted, on one line
ev_sorted() {
	echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' '
}

ktap_begin scenario-fpga
ktap_at_exit cleanup
if [ ! -e "$ev" ]; then
	ktap_skip fpga "no FPGA stack (run.sh loads it where it was built)"
	ktap_end
fi
# the region is a node of the base tree: the kernel leaks the properties
# FPGA overlays add to it (firmware-name, external-fpga-config), and says so
expect_kmsg "OF: overlay: WARNING: memory leak will occur if overlay removed, property: $region/"
# the kernel's fpga-bridge.c holds a bridge's mutex while a region uses the
# bridge, also in user space: lockdep (debug lane) says so, once (run.sh
# runs this script late there)
[ "${OV_LANE:-}" = debug ] && expect_kmsg 'WARNING: lock held when returning to user space!'

# --- the region: of-fpga-region created its static child --------------------------
ktap_diag "region $region, its window at $pl_base"
if [ -z "$region" ] || [ -z "$pl_base" ]; then
	ktap_fail region_window "no label fpga_full or no ranges entry: '$region' '$pl_base'"
	ktap_end
fi
region_dev=$(class_of_node fpga_region "$region")
ktap_match region_registered '^region[0-9]+$' "$region_dev"
check_bound static_child_bound platform "$region/static@f0000" ovpop-test-platform
static=$OV_DEV
mgr=$(manager_named 'ovpop test FPGA manager')
ktap_match manager_registered 'ovpop test FPGA manager' "$(cat "$mgr/name" 2>&1)"
regions0=$(nregions)

# bitstreams of odd sizes
dd if=/dev/urandom of="$image" bs=1001 count=77 2>/dev/null
dd if=/dev/urandom of="$pr_image" bs=999 count=13 2>/dev/null
# shellcheck disable=SC2046 # two words
set -- $("$OVPOP_DIR/bin/ovpop-tool" crc32 "$image")
size=$1 crc=$2
# shellcheck disable=SC2046 # two words
set -- $("$OVPOP_DIR/bin/ovpop-tool" crc32 "$pr_image")
pr_size=$1 pr_crc=$2
br=bridge:fpga-bridge
ov_snapshot >"$snap"

# --- full reconfiguration ------------------------------------------------------------
ev_clear
ktap_check apply ov_apply_dtbo fpga "$full"
cp "$ev" "$out"
ktap_diag_file "$out" 16 "events: "
# first the image, between the bridge's disable and enable, then the devices
ktap_eq image_written_first "$br:disable program:0x0 $br:enable add " "$(ev_seq "$out")"
ktap_match image_bytes "^[0-9]+ [0-9]+ program size=$size crc=$crc flags=0x0\$" \
	"$(grep ' program ' "$out")"
added=$(ev_nodes "$out" add)
ktap_eq pl_devices_added "$(ev_sorted "$pl_nodes")" "$(ev_sorted "$added")"
ktap_eq manager_operating operating "$(cat "$mgr/state" 2>&1)"
check_bound pl_test_bound platform "$region/pl-test@0" ovpop-test-platform &&
	check_report pl_test_address platform "$OV_DEV" " $(pl_res 0) "
check_bound pl_cell_amba amba "$region/pl-cell@1000" ovpop-test-amba &&
	check_report pl_cell_address amba "$OV_DEV" " $(pl_res 0x1000) irq=[0-9]+ "
check_device pl_bus_device platform "$region/pl-bus@10000"
bus_dir=$OV_DIR
check_bound pl_bus_child_bound platform "$region/pl-bus@10000/test@1000" ovpop-test-platform &&
	check_report pl_bus_child_address platform "$OV_DEV" " $(pl_res 0x11000) " &&
	check_under pl_bus_child_below_bus "$(dev_path platform "$OV_DEV")" "$bus_dir"
# the PL's GPIO controller and its consumers, which drive its lines
check_bound pl_gpio_bound platform "$region/pl-gpio@20000" ovpop-test-pl-gpio
check_bound pl_leds_bound platform "$region/pl-leds" leds-gpio
check_bound pl_vdd_bound platform "$region/pl-vdd" reg-fixed-voltage
# (the driver's symlink is there before its probe runs, and regulator-fixed
# probes asynchronously)
wait_until 3 pl_line_is 0 1
ktap_eq pl_led_line_on 1 "$(pl_line 0)"
wait_until 3 pl_line_is 1 1
ktap_eq pl_vdd_line_on 1 "$(pl_line 1)"
# (the LED class sets a sleeping GPIO from a work item)
echo 0 >/sys/class/leds/pl:green:done/brightness
wait_until 3 pl_line_is 0 0
ktap_eq pl_led_line_off 0 "$(pl_line 0)"
ktap_eq static_child_untouched "$static" "$(dev_of_node platform "$region/static@f0000")"

ev_clear
ktap_check remove ov_remove fpga
cp "$ev" "$out"
deleted=$(ev_nodes "$out" del)
ktap_diag "added: $added"
ktap_diag "deleted: $deleted"
ktap_eq bridge_disabled_after_devices "del $br:disable " "$(ev_seq "$out")"
ktap_eq pl_devices_deleted "$(ev_sorted "$added")" "$(ev_sorted "$deleted")"
ktap_eq pl_children_deleted_before_parents "" "$(ev_parent_first "$deleted")"
ktap_eq pl_top_devices_deleted_in_reverse "$(ev_reverse "$(ev_top "$added")")" \
	"$(ev_top "$deleted")"
check_snapshot nothing_left "$snap"

ev_clear
ktap_check apply_again ov_apply_dtbo fpga "$full"
ktap_eq image_written_again 1 "$(grep -c ' program ' "$ev")"

# show_line STATE: ovl show's line for the region with its manager in STATE
show_line() {
	echo "fpga:    region $region ($region_dev), manager ${mgr##*/} (ovpop test FPGA manager): $1"
}

ktap_eq ovl_show_region "$(show_line operating)" "$(ovl show fpga | grep '^fpga:')"
ktap_check remove_for_refusals ov_remove fpga

# --- refused overlays ---------------------------------------------------------------
# refused CASE OVERLAY ERE [STATE]: applying OVERLAY fails with "error"
# matching ERE (and ovl apply, failing too, gives the manager's STATE)
refused() {
	ev_clear
	if ov_apply_dtbo fpga "$ovs/$2.dtbo" 2>/dev/null; then
		ktap_fail "$1_refused" "applied"
	else
		ktap_eq "$1_refused" unapplied "$(ov_status fpga)"
	fi
	e=$(cat "$OV_CFS/fpga/error" 2>&1)
	ktap_diag "$1: error: $e"
	ktap_match "$1_error" "$3" "$e"
	ktap_eq "$1_no_pl_device" "" "$(ev_nodes "$ev" add)"
	ov_remove fpga
	[ -n "${4:-}" ] || return 0
	ovl apply "$ovs/$2.dtbo" as fpga 2>"$out" >/dev/null
	ktap_eq "$1_ovl_apply_fails" 1 "$?"
	ktap_eq "$1_ovl_apply_state" "ovl: $(show_line "$4")" "$(grep '^ovl: fpga:' "$out")"
	ktap_eq "$1_ovl_apply_no_item" missing "$(ov_status fpga)"
}

# what "error" says when the region refused the overlay (module/apply.c)
refused_msg="the FPGA region $region refused it: programming or its bridges failed"
ktap_check guard_apply ov_apply_dtbo fpga-guard "$ovs/fpga-external.dtbo"
refused missing fpga-missing \
	"^(-ENOENT|-2): the FPGA region $region did not find its image " 'firmware request error'
# steps 1-3 the manager's, 4 the bridge's enable after the image was written
for step in 1 2 3 4; do
	case $step in
	1) state='write init error' ;;
	2) state='write error' ;;
	3) state='write complete error' ;;
	4) state=operating ;;
	esac
	echo "$step" >"$fail"
	refused "fail_step$step" fpga-full "^(-EIO|-5): $refused_msg" "$state"
	ktap_match "fail_step${step}_failed" "fail step=$step errno=5" "$(cat "$ev")"
done
echo 0 >"$fail"
refused ambiguous fpga-ambiguous "^(-EINVAL|-22): $refused_msg"
ktap_check guard_removable ov_remove fpga-guard

ktap_check apply_after_refusals ov_apply_dtbo fpga "$full"
# a second image, twice: the kernel keeps each refused changeset and ovpop
# removes it; that removal must not undo the applied image's state (the
# region's image, its bridge). (fpga-missing's: fpga-full again has nodes
# with phandles that are in the live tree now, which ovpop refuses before
# the region sees it.)
for n in 1 2; do
	ev_clear
	second=$(ov_apply_dtbo fpga-second "$ovs/fpga-missing.dtbo" 2>/dev/null &&
		echo applied)
	ktap_eq "second_image${n}_refused" "" "$second"
	ktap_match "second_image${n}_error" "^(-EINVAL|-22): $refused_msg" \
		"$(cat "$OV_CFS/fpga-second/error" 2>&1)"
	ov_remove fpga-second
	ktap_eq "second_image${n}_nothing_undone" "" "$(ev_seq "$ev")"
done
ktap_eq bridge_still_enabled enabled "$(cat /sys/class/fpga_bridge/br*/state 2>&1)"
ev_clear
ktap_check remove_after_refusals ov_remove fpga
ktap_eq removal_disables_bridge "del $br:disable " "$(ev_seq "$ev")"
check_snapshot nothing_left_after_refusals "$snap"

# --- an FPGA programmed before Linux ---------------------------------------------------
ev_clear
ktap_check external_apply ov_apply_dtbo fpga "$ovs/fpga-external.dtbo"
ktap_eq external_nothing_programmed 0 "$(grep -c ' program ' "$ev")"
check_bound external_pl_bound platform "$region/pl-test@2000" ovpop-test-platform
ktap_check external_remove ov_remove fpga

# --- partial reconfiguration ---------------------------------------------------------
ev_clear
ktap_check pr_shell_apply ov_apply_dtbo fpga-shell "$ovs/fpga-pr-shell.dtbo"
check_bound pr_freeze_bridge_bound platform "$region/freeze@20000" ovpop-test-fpga-bridge
check_bound pr_region_bound platform "$pr" of-fpga-region
ktap_eq pr_one_region_more $((regions0 + 1)) "$(nregions)"
ktap_eq pr_shell_image "$br:disable program:0x0 $br:enable add " "$(ev_seq "$ev")"
for n in 1 2; do
	ev_clear
	ktap_check "pr_persona${n}_apply" ov_apply_dtbo fpga-persona "$ovs/fpga-pr-persona.dtbo"
	cp "$ev" "$out"
	ktap_diag_file "$out" 6 "persona $n events: "
	ktap_eq "pr_persona${n}_order" \
		"bridge:freeze@20000:disable program:0x1 bridge:freeze@20000:enable add " \
		"$(ev_seq "$out")"
	ktap_match "pr_persona${n}_image" " program size=$pr_size crc=$pr_crc flags=0x1\$" \
		"$(grep ' program ' "$out")"
	check_bound "pr_persona${n}_bound" platform "$pr/persona@0" ovpop-test-platform &&
		check_report "pr_persona${n}_address" platform "$OV_DEV" " $(pl_res 0x30000) "
	if [ "$n" = 1 ]; then
		# the shell stays while a persona covers it
		if err=$(rmdir "$OV_CFS/fpga-shell" 2>&1); then
			ktap_fail pr_shell_covered "rmdir succeeded"
		else
			ktap_match pr_shell_covered 'busy' "$err"
		fi
		# a second persona is refused, and its removal undoes nothing
		ev_clear
		second=$(ov_apply_dtbo fpga-persona2 "$ovs/fpga-pr-persona.dtbo" 2>/dev/null &&
			echo applied)
		ktap_eq pr_second_persona_refused "" "$second"
		ov_remove fpga-persona2
		ktap_eq pr_second_persona_nothing_undone "" "$(ev_seq "$ev")"
	fi
	ev_clear
	ktap_check "pr_persona${n}_remove" ov_remove fpga-persona
	ktap_eq "pr_persona${n}_removed" "del bridge:freeze@20000:disable " "$(ev_seq "$ev")"
done
ev_clear
ktap_check pr_shell_remove ov_remove fpga-shell
ktap_eq pr_shell_removed "del $br:disable " "$(ev_seq "$ev")"
ktap_eq pr_region_gone "$regions0" "$(nregions)"
check_snapshot nothing_left_after_pr "$snap"

# --- the board's own manager -----------------------------------------------------------
devcfg=$(symbol fpga_devcfg)
if [ -n "$devcfg" ]; then
	ktap_diag "the board's region $devcfg on its own manager"
	expect_kmsg "OF: overlay: WARNING: memory leak will occur if overlay removed, property: $devcfg/"
	real=$(manager_named 'Xilinx Zynq FPGA Manager')
	ktap_match devcfg_manager 'Zynq' "$(cat "$real/name" 2>&1)"
	# what zynq-fpga takes: a multiple of 4 bytes with the sync word
	# 0xaa995566 (byte-swapped) after the padding
	{
		printf '\377\377\377\377\377\377\377\377\146\125\231\252'
		dd if=/dev/urandom bs=1024 count=4 2>/dev/null
	} >"$zynq_image"
	refused devcfg fpga-devcfg "^(-ETIMEDOUT|-110): the FPGA region $devcfg refused it"
	ktap_eq devcfg_state 'write init error' "$(cat "$real/state" 2>&1)"
	check_snapshot nothing_left_after_devcfg "$snap"
fi

# --- cycles --------------------------------------------------------------------------
sleep 1
mem0=$(ov_mem)
i=0
bad=0
while [ "$i" -lt "$cycles" ] && [ "$bad" -lt 5 ]; do
	i=$((i + 1))
	ov_apply_dtbo fpga "$full" 2>/dev/null || bad=$((bad + 1))
	ov_remove fpga || bad=$((bad + 1))
done
ktap_eq cycles_ran "$cycles" "$i"
ktap_eq cycles_failed 0 "$bad"
sleep 1
ov_check_slab cycles_slab_flat "$mem0" "$(ov_mem)"
check_snapshot nothing_left_after_cycles "$snap"
ktap_end
