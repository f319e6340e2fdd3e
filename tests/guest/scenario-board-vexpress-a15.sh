#!/bin/sh
# Scenario board-vexpress-a15 (the Versatile Express lane,
# OVPOP_BOARD=vexpress-a15; the kernel's vexpress-v2p-ca15-tc1.dts on QEMU's
# vexpress-a15): the overlays of overlays/boards/vexpress-a15-*.dtso on the
# board's own tree, whose motherboard devices sit three buses deep.
# - a primecell on the motherboard's IOFPGA bus and an add-on simple-bus
#   with a platform device and a primecell on chip select 2: each bound,
#   below its bus in sysfs, at the CPU address that the levels of ranges
#   give (the device's resource and /proc/iomem), its interrupt through
#   bus@8000000's interrupt-map at the right GIC SPI;
# - the board's own devices and drivers, on every bus, untouched while they
#   are applied and after they are removed;
# - the board's PL031 disabled by one overlay and enabled again by a second
#   one: an AMBA device bound to rtc-pl031 with its RTC, each time;
# - 100 apply/remove rounds with memory flat.
# Mainline creates the new primecells as platform devices, none of the
# add-on bus's children, and leaves the disabled PL031 in place.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

ovs="vexpress-a15-iofpga-primecell vexpress-a15-addon-bus"
mb=/bus@8000000/motherboard-bus@8000000
iofpga=$mb/iofpga-bus@300000000
rtc=$iofpga/rtc@170000
cell=$iofpga/ovpop@180000
addon=$mb/addon-bus@201000000
cycles=100
snap="$OV_TMP/scenario-board-vexpress-a15.snap"
board="$OV_TMP/scenario-board-vexpress-a15.board"
now="$OV_TMP/scenario-board-vexpress-a15.now"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove vexpress-a15-rtc-enable vexpress-a15-rtc-disable
	ov_remove vexpress-a15-addon-bus vexpress-a15-iofpga-primecell
	rm -f "$snap" "$board" "$now"
}

# shellcheck disable=SC2317 # run by ktap_check and ovs_apply
apply_board() { # NAME
	ov_apply_dtbo "$1" "$OVPOP_DIR/overlays/boards/$1.dtbo"
}

# shellcheck disable=SC2317 # run by ktap_check and ovs_round
ovs_apply() {
	for o in $ovs; do
		apply_board "$o" || return 1
	done
}

# shellcheck disable=SC2317 # run by ktap_check and ovs_round
ovs_remove() {
	ov_remove vexpress-a15-addon-bus vexpress-a15-iofpga-primecell
}

# The sysfs directory of the platform device of bus node $1, or "".
bus_dir() {
	d=$(dev_of_node platform "$1") && dev_path platform "$d"
}

# check_cell CASE BUS NODE DRIVER BUS-DIR START-END [HWIRQ]: the device of
# NODE on BUS is bound to DRIVER below BUS-DIR, reports its translated
# memory (and its interrupt, mapped from GIC hwirq HWIRQ); a primecell's
# memory is in /proc/iomem (amba_device_add() requests it; the OF core
# adds platform devices without inserting their resources)
check_cell() {
	if ! check_bound "$1" "$2" "$3" "$4"; then
		return 1
	fi
	check_under "$1_below_bus" "$(dev_path "$2" "$OV_DEV")" "$5"
	rep=$(ov_report "$2" "$OV_DEV")
	ktap_match "$1_address" "res=$6 " "$rep"
	if [ "$2" = amba ]; then
		range=$(echo "$6" | sed 's/0x//g')
		ktap_check "$1_iomem" grep -q "^ *$range : " /proc/iomem
	fi
	if [ -n "${7:-}" ]; then
		irq=$(printf '%s\n' "$rep" | sed -n 's/.* irq=\([0-9]*\) .*/\1/p')
		ktap_eq "$1_gic_spi" "$7" "$(cat "/sys/kernel/irq/${irq:-none}/hwirq" 2>/dev/null)"
	fi
}

# the PL031 bound, its RTC below it
rtc_bound() { # CASE
	if check_bound "$1" amba "$rtc" rtc-pl031; then
		ktap_check "$1_rtc" sh -c "ls -d '$(dev_path amba "$OV_DEV")'/rtc/rtc* >/dev/null"
	fi
}

ktap_begin scenario-board-vexpress-a15
ktap_at_exit cleanup
ov_snapshot >"$snap"
ov_devices_all >"$board"

# --- a primecell on the IOFPGA, an add-on bus on chip select 2 -------------
ktap_check apply ovs_apply
ov_devices_all >"$now"
check_lines_kept board_devices_kept_while_applied "$board" "$now"

iodir=$(bus_dir "$iofpga")
check_cell iofpga_primecell amba "$cell" ovpop-test-amba "$iodir" \
	0x1c180000-0x1c180fff 72
adir=$(bus_dir "$addon")
ktap_check addon_bus_device [ -n "$adir" ]
check_under addon_bus_below_motherboard_bus "$adir" "$(bus_dir "$mb")"
check_cell addon_platform platform "$addon/ctrl@1000" ovpop-test-platform \
	"$adir" 0x19001000-0x190010ff
check_cell addon_primecell amba "$addon/ovpop@2000" ovpop-test-amba \
	"$adir" 0x19002000-0x19002fff 73
for o in $ovs; do
	check_devices_sysfs "report_true_${o#vexpress-a15-}" "$o"
done

ktap_check remove ovs_remove
check_gone iofpga_primecell_removed "$cell"
check_gone addon_primecell_removed "$addon/ovpop@2000"
check_gone addon_platform_removed "$addon/ctrl@1000"
check_gone addon_bus_removed "$addon"
ktap_eq iomem_released "" "$(grep -E '^ *(1c180000|19002000)-' /proc/iomem)"
check_devices_all board_devices_same_after "$board"
check_snapshot nothing_left "$snap"

# --- the board's PL031 -------------------------------------------------------
# changing a property of the base tree
expect_kmsg "OF: overlay: WARNING: memory leak will occur if overlay removed, property: $rtc/status"
rtc_bound rtc_at_boot
ktap_check rtc_disable apply_board vexpress-a15-rtc-disable
check_gone rtc_disabled "$rtc"
ktap_refused rtc_disabled_iomem_released grep -q '^ *1c170000-1c170fff : ' /proc/iomem
check_dt rtc_node_kept "$rtc" yes
ktap_check rtc_enable apply_board vexpress-a15-rtc-enable
rtc_bound rtc_enabled_again
ktap_check rtc_remove_enable ov_remove vexpress-a15-rtc-enable
check_gone rtc_disabled_again "$rtc"
ktap_check rtc_remove_disable ov_remove vexpress-a15-rtc-disable
rtc_bound rtc_back
# The kernel's alarmtimer holds the first RTC with wakeup forever, and its
# platform device stays registered below the removed RTC (ov.sh,
# ov_snapshot): the board's alarmtimer.0.auto goes from the list.
check_devices_all board_devices_same_after_rtc "$board" '^dev platform alarmtimer\.'
ktap_diag "alarmtimer devices left below a removed RTC: $(ov_alarmtimer_pinned)"
# the state from here on (the RTC's class device has a new name)
ov_snapshot >"$snap"

# --- cycles ----------------------------------------------------------------
# shellcheck disable=SC2317 # run by check_rounds
ovs_round() {
	ovs_apply && wait_until 3 ov__bound amba "$addon/ovpop@2000" ovpop-test-amba &&
		ovs_remove
}
check_rounds "rounds_${cycles}" "$cycles" ovs_round
check_devices_all rounds_board_devices_same "$board" '^dev platform alarmtimer\.'
check_snapshot rounds_nothing_left "$snap"
ktap_end
