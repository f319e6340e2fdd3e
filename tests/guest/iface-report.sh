#!/bin/sh
# The devices report (configfs "devices", module/report.c): one line
# "<bus> <device> <node> <driver|deferred|unbound>" per device of the nodes
# an overlay added or enabled, in the overlay's order, each true to sysfs; empty for
# an unapplied item and for an overlay that only changes a property; the
# kernel's devices listed too (populate=0: the platform device the kernel
# makes for a primecell shows "unbound"). Uses overlays/addon-board.dtso,
# report-states.dtso, kernel-bus-children.dtso, platform-bus-prop.dtso and
# rtc.dtso.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

defer=/sys/module/ovpop_testdrv/parameters/defer_probe
snap="$OV_TMP/iface-report.snap"
bus=/addon-bus@9030000

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	echo N >"$defer"
	ov_remove platform-bus-prop kernel-bus-children report-states \
		addon-board rtc empty
	if [ "$(cat /sys/module/ovpop/parameters/populate 2>/dev/null)" != Y ]; then
		rmmod ovpop 2>/dev/null
		insmod "$OVPOP_DIR/ovpop.ko"
	fi
	rm -f "$snap"
}

# report_field ITEM NODE N: field N of NODE's line in ITEM's report
report_field() {
	ov_devices "$1" | awk -v n="$2" -v f="$3" '$3 == n { print $f }'
}

# shellcheck disable=SC2317 # run by wait_until
ov__driver_is() {
	[ "$(report_field "$1" "$2" 4)" = "$3" ]
}

ktap_begin iface-report
ktap_at_exit cleanup
ov_snapshot >"$snap"

# --- an item without an overlay -----------------------------------------------------
ktap_check unapplied_mkdir mkdir "$OV_CFS/empty"
ktap_check unapplied_readable cat "$OV_CFS/empty/devices"
ktap_eq unapplied_empty "" "$(ov_devices empty)"
ov_remove empty

# --- a board behind a new bus: every device, in tree order ------------------------
ktap_check board_apply ov_apply_dtbo addon-board
check_bound board_gpio_bound amba "$bus/gpio@0" pl061_gpio
check_bound board_leds_bound platform "$bus/leds" leds-gpio
check_bound board_reg_bound platform "$bus/regulator-addon-3v3" reg-fixed-voltage
ktap_eq board_nodes_in_order \
	"$bus $bus/gpio@0 $bus/leds $bus/regulator-addon-3v3" \
	"$(ov_devices addon-board | awk '{ print $3 }' | tr '\n' ' ' | sed 's/ $//')"
ktap_eq board_gpio_line "amba $(dev_of_node amba "$bus/gpio@0") pl061_gpio" \
	"$(ov_devices addon-board | awk -v n="$bus/gpio@0" '$3 == n { print $1, $2, $4 }')"
ktap_eq board_leds_driver leds-gpio "$(report_field addon-board "$bus/leds" 4)"
check_devices_sysfs board_true_to_sysfs addon-board
report=$(ov_devices addon-board)
while read -r line; do
	ktap_diag "$line"
done <<EOF
$report
EOF
ktap_check board_remove ov_remove addon-board
check_gone board_gone "$bus/gpio@0"

# --- deferred, unbound, then bound --------------------------------------------------
echo Y >"$defer"
ktap_check states_apply ov_apply_dtbo report-states
ktap_eq states_two_lines 2 "$(ov_devices report-states | wc -l | tr -d ' ')"
ktap_eq states_deferred deferred \
	"$(report_field report-states /ovpop-report-defer@c604000 4)"
ktap_eq states_unbound unbound \
	"$(report_field report-states /ovpop-report-none@c605000 4)"
check_devices_sysfs states_true_to_sysfs report-states
echo N >"$defer"
dev=$(report_field report-states /ovpop-report-defer@c604000 2)
echo "$dev" >/sys/bus/platform/drivers_probe 2>/dev/null
if wait_until 3 ov__driver_is report-states /ovpop-report-defer@c604000 \
	ovpop-test-platform; then
	ktap_ok states_bound_after_probe
else
	ktap_fail states_bound_after_probe \
		"line: $(ov_devices report-states | grep report-defer)"
fi
ktap_check states_remove ov_remove report-states

# --- children of a kernel bus, and an overlay that only sets a property ----------
ktap_check kbus_apply ov_apply_dtbo kernel-bus-children
ktap_eq kbus_children \
	"/platform-bus@c000000/test@300000 /platform-bus@c000000/test@301000" \
	"$(ov_devices kernel-bus-children | awk '{ print $3 }' | tr '\n' ' ' | sed 's/ $//')"
expect_kmsg 'OF: overlay: WARNING: memory leak will occur if overlay removed, property: /platform-bus@c000000/ovpop,note'
ktap_check prop_apply ov_apply_dtbo platform-bus-prop
ktap_eq prop_only_empty "" "$(ov_devices platform-bus-prop)"
ktap_check kbus_remove ov_remove platform-bus-prop kernel-bus-children

# --- the kernel's own devices (populate=0) ------------------------------------------
if rmmod ovpop && insmod "$OVPOP_DIR/ovpop.ko" populate=0; then
	ktap_ok control_reload
	ktap_check control_apply ov_apply_dtbo rtc
	# the kernel's notifier makes a platform device; no platform driver
	# matches a primecell, which is why ovpop exists
	ktap_match control_kernel_device '^platform [^ ]+ /rtc@9010000 unbound$' \
		"$(ov_devices rtc)"
	check_devices_sysfs control_true_to_sysfs rtc
	ov_remove rtc
	rmmod ovpop
	insmod "$OVPOP_DIR/ovpop.ko"
else
	ktap_fail control_reload "rmmod/insmod populate=0 failed"
fi
ktap_check reloaded [ -d "$OV_CFS" ]

check_snapshot nothing_left "$snap"
ktap_end
