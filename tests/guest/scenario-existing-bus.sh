#!/bin/sh
# Scenario existing-bus (overlays/existing-bus.dtso, then
# existing-bus-children.dtso): children added by a second overlay to a bus
# that a first overlay created. Only the enabled child with a compatible
# gets a device; the disabled one and the compatible-less one get none on
# any bus (mainline creates one for the compatible-less node). Removing the
# second overlay removes only its children.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

bus=/ovpop-exbus@c200000
snap="$OV_TMP/scenario-existing-bus.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove existing-bus-children existing-bus
	rm -f "$snap"
}

ktap_begin scenario-existing-bus
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check apply_bus ov_apply_dtbo existing-bus
check_device bus_device platform "$bus"
busdir=$OV_DIR
check_bound first_child platform "$bus/test@0" ovpop-test-platform

ktap_check apply_children ov_apply_dtbo existing-bus-children
if check_bound enabled_child platform "$bus/test@1000" ovpop-test-platform; then
	check_under enabled_child_below_bus "$(dev_path platform "$OV_DEV")" "$busdir"
	check_report enabled_child_resource platform "$OV_DEV" \
		"^bus=platform name=$OV_DEV res=0xc201000-0xc201fff irq=none pdata=none\$"
else
	ktap_fail enabled_child_below_bus "no device"
	ktap_fail enabled_child_resource "no device"
fi
check_dt disabled_child_in_tree "$bus/test@2000" yes
check_gone disabled_child_no_device "$bus/test@2000"
check_dt regs_only_child_in_tree "$bus/regs@3000" yes
check_gone regs_only_child_no_device "$bus/regs@3000"

ktap_check remove_children ov_remove existing-bus-children
check_gone enabled_child_removed "$bus/test@1000"
check_bound first_child_kept platform "$bus/test@0" ovpop-test-platform
ktap_check remove_bus ov_remove existing-bus
check_gone first_child_removed "$bus/test@0"
check_gone bus_removed "$bus"
check_snapshot nothing_left "$snap"
ktap_end
