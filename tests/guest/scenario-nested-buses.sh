#!/bin/sh
# Scenario nested-buses (overlays/nested-buses.dtso): simple-bus >
# simple-mfd > arm,amba-bus in one overlay, a test platform device on every
# level and a primecell on the deepest. Every bus and device must be created
# with its parent bus as sysfs parent, resources translated through all the
# ranges, and all of it removed with the overlay. Mainline creates only the
# top bus device.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

top=/ovpop-nest@c100000
mfd=$top/mfd@10000
amb=$mfd/amba-bus@8000
snap="$OV_TMP/scenario-nested-buses.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove nested-buses
	rm -f "$snap"
}

# The sysfs directory of the platform device of bus node $1, or "".
bus_dir() {
	d=$(dev_of_node platform "$1") && dev_path platform "$d"
}

ktap_begin scenario-nested-buses
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check apply ov_apply_dtbo nested-buses

topdir=$(bus_dir "$top")
mfddir=$(bus_dir "$mfd")
ambdir=$(bus_dir "$amb")
ktap_check level1_bus_device [ -n "$topdir" ]
ktap_check level2_bus_device [ -n "$mfddir" ]
ktap_check level3_bus_device [ -n "$ambdir" ]
check_under level2_bus_below_level1 "$mfddir" "$topdir"
check_under level3_bus_below_level2 "$ambdir" "$mfddir"

# level CASE NODE PARENT-DIR START-END
level() {
	if check_bound "$1_test_device" platform "$2" ovpop-test-platform; then
		check_under "$1_test_below_bus" "$(dev_path platform "$OV_DEV")" "$3"
		check_report "$1_test_resource" platform "$OV_DEV" \
			"^bus=platform name=$OV_DEV res=$4 irq=none pdata=none\$"
	else
		ktap_fail "$1_test_below_bus" "no device"
		ktap_fail "$1_test_resource" "no device"
	fi
}
level level1 "$top/test@0" "$topdir" 0xc100000-0xc100fff
level level2 "$mfd/test@0" "$mfddir" 0xc110000-0xc110fff
level level3 "$amb/test@0" "$ambdir" 0xc118000-0xc118fff

if check_bound level3_primecell amba "$amb/amba@1000" ovpop-test-amba; then
	check_under level3_primecell_below_bus "$(dev_path amba "$OV_DEV")" "$ambdir"
	check_report level3_primecell_report amba "$OV_DEV" \
		"^bus=amba name=$OV_DEV res=0xc119000-0xc119fff irq=[0-9]+ pdata=none periphid=0x0005a0c5\$"
else
	ktap_fail level3_primecell_below_bus "no device"
	ktap_fail level3_primecell_report "no device"
fi

ktap_check remove ov_remove nested-buses
check_dt node_removed "$top" no
check_gone level3_primecell_removed "$amb/amba@1000"
check_gone level3_test_removed "$amb/test@0"
check_gone level3_bus_removed "$amb"
check_gone level2_test_removed "$mfd/test@0"
check_gone level2_bus_removed "$mfd"
check_gone level1_test_removed "$top/test@0"
check_gone level1_bus_removed "$top"
check_snapshot nothing_left "$snap"
ktap_end
