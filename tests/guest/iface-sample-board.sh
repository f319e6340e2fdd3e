#!/bin/sh
# The sample board (samples/board/; docs/sample-board.md):
# ovpop_sample_board.ko binds to the node that overlays/sample-board.dtso
# adds and calls ovpop_populate() with its bus table and auxdata table.
# Checked: the auxdata names (sample-widget.0, and sample-gpio for the PL061,
# an AMBA device) with of_node on the right node; the platform_data read by
# ovpop_sample_widget.ko (sysfs label/gain/config_source, and its log line);
# the child of the custom "ovpop,sample-bus" (bus table) below its bus
# device, named and configured from the device tree because no auxdata entry
# has its address; a widget added later by sample-board-more.dtso getting its
# auxdata entry; unbinding the board (rmmod) taking every child away and
# binding it again bringing them back; removing the overlays leaving nothing;
# both modules unloading; the overlay's configfs devices report.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

board=/sample-board
w0=$board/widget@c800000
w1=$board/widget@c801000
gpio=$board/gpio@9030000
bus=$board/bus@c810000
bw=$bus/widget@0
mods=$OVPOP_DIR/modules
snap="$OV_TMP/iface-sample-board.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove sample-board-more sample-board
	ov_loaded ovpop_sample_board && rmmod ovpop_sample_board
	ov_loaded ovpop_sample_widget && rmmod ovpop_sample_widget
	rm -f "$snap"
}

# The configuration a bound widget shows: "<config_source> <label> <gain>"
widget_config() {
	wc__d=/sys/bus/platform/devices/$1
	echo "$(cat "$wc__d/config_source" 2>/dev/null)" \
		"$(cat "$wc__d/label" 2>/dev/null)" "$(cat "$wc__d/gain" 2>/dev/null)"
}

# The node (path) of device NAME on BUS, looked up by name, or ""
node_of() {
	no__t=$(readlink "/sys/bus/$1/devices/$2/of_node" 2>/dev/null) || return 0
	echo "${no__t#*/firmware/devicetree/base}"
}

# check_widget CASE PATH NAME CONFIG: the widget node PATH has a platform
# device named NAME, bound to sample-widget, showing CONFIG
check_widget() {
	if ! check_bound "$1" platform "$2" sample-widget; then
		ktap_fail "${1}_name" "no bound device"
		ktap_fail "${1}_config" "no bound device"
		return 1
	fi
	ktap_eq "${1}_name" "$3" "$OV_DEV"
	ktap_eq "${1}_config" "$4" "$(widget_config "$OV_DEV")"
}

# The board's children, all gone: CASE_PREFIX
check_children_gone() {
	check_gone "${1}_widget0" "$w0"
	check_gone "${1}_gpio" "$gpio"
	check_gone "${1}_bus" "$bus"
	check_gone "${1}_bus_widget" "$bw"
	check_gone "${1}_widget1" "$w1"
}

ktap_begin iface-sample-board
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check insmod_widget_driver insmod "$mods/ovpop_sample_widget.ko"
ktap_check insmod_board insmod "$mods/ovpop_sample_board.ko"
ktap_check apply_board ov_apply_dtbo sample-board

check_bound board_bound platform "$board" ovpop-sample-board
boarddir=$(dev_path platform "$OV_DEV")

# auxdata: the board file's name and its platform_data. Were the table
# ignored, the device would be c800000.widget and fail to probe (no
# platform_data, no properties).
check_widget widget0 "$w0" sample-widget.0 "platform_data front-panel 7"
ktap_eq widget0_of_node "$w0" "$(node_of platform sample-widget.0)"
check_under widget0_below_board "$(dev_path platform sample-widget.0)" "$boarddir"
ktap_match widget0_probe_logged \
	'sample-widget\.0: front-panel, gain 7, at \[mem 0x0c800000-0x0c800fff\] \(from platform_data\)' \
	"$(dmesg | grep -F 'sample-widget.0: front-panel')"

# A primecell: an AMBA device, not a platform device, named by auxdata
if check_bound gpio_amba_bound amba "$gpio" pl061_gpio; then
	ktap_eq gpio_name sample-gpio "$OV_DEV"
else
	ktap_fail gpio_name "no bound device"
fi
ktap_eq gpio_no_platform_device "" "$(dev_of_node platform "$gpio")"

# The bus table: the custom bus's child exists, below the bus device. Its
# compatible is in the auxdata table, its address is not: no name, no
# platform_data, the device tree's properties.
check_device bus_device platform "$bus"
busdir=$OV_DIR
check_under bus_below_board "$busdir" "$boarddir"
check_widget bus_widget "$bw" c810000.widget "devicetree bus-widget 3"
check_under bus_widget_below_bus "$(dev_path platform c810000.widget)" "$busdir"

# The loader's report of the overlay names each device and its driver
ktap_eq devices_report "platform sample-board /sample-board ovpop-sample-board
platform sample-widget.0 $w0 sample-widget
amba sample-gpio $gpio pl061_gpio
platform sample-board:bus@c810000 $bus unbound
platform c810000.widget $bw sample-widget" "$(cat "$OV_CFS/sample-board/devices")"

# A node added below the board later gets its auxdata entry too
ktap_check apply_more ov_apply_dtbo sample-board-more
check_widget widget1 "$w1" sample-widget.1 "platform_data rear-panel 2"

# Unbinding the board depopulates it; binding it again populates it again
ktap_check rmmod_board_applied rmmod ovpop_sample_board
check_children_gone unbound_gone
check_device board_device_kept platform "$board"
ktap_check insmod_board_again insmod "$mods/ovpop_sample_board.ko"
check_bound board_bound_again platform "$board" ovpop-sample-board
check_widget widget0_again "$w0" sample-widget.0 "platform_data front-panel 7"
check_widget widget1_again "$w1" sample-widget.1 "platform_data rear-panel 2"
check_widget bus_widget_again "$bw" c810000.widget "devicetree bus-widget 3"
check_bound gpio_again amba "$gpio" pl061_gpio

ktap_check remove_more ov_remove sample-board-more
check_gone widget1_removed "$w1"
check_bound widget0_kept platform "$w0" sample-widget

ktap_check remove_board ov_remove sample-board
check_children_gone removed_gone
check_gone board_removed "$board"
check_dt board_node_removed "$board" no

ktap_check rmmod_board rmmod ovpop_sample_board
ktap_check rmmod_widget_driver rmmod ovpop_sample_widget
check_snapshot nothing_left "$snap"
ktap_end
