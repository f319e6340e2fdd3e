#!/bin/sh
# A bus's own driver populating it (overlays/mfd-populate.dtso): ovpop
# creates the children of the new "simple-mfd" node while the bus's probe
# is deferred; the driver then binds and calls devm_of_platform_populate(),
# which finds the children populated. Unbinding it runs
# of_platform_depopulate(), which destroys every child marked
# OF_POPULATED, ovpop's included. ovpop must let them go (no record of a
# freed device), the driver's next bind must give the children devices
# again (the kernel's now), and removing the overlay must take everything
# away.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

defer=/sys/module/ovpop_testdrv/parameters/defer_probe
drv=/sys/bus/platform/drivers/ovpop-test-platform
bus=/ovpop-mfd@c610000
cell=$bus/ovpop-mfd-cell@c611000
amba=$bus/ovpop-mfd-amba@c612000
snap="$OV_TMP/iface-parent-driver.snap"

# An AMBA device keeps its registers claimed until its release, which
# CONFIG_DEBUG_KOBJECT_RELEASE (the debug lane) runs 1-4 s after the
# unbind: a populate before that gets -EBUSY from amba_device_add().
amba_claims() {
	grep -c ': ovpop-mfd-amba@c612000$' /proc/iomem
}

# shellcheck disable=SC2317 # run by wait_until
amba_released() {
	[ "$(amba_claims)" = 0 ]
}

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	echo Y >"$defer"
	ov_remove mfd-populate
	rm -f "$snap"
}

ktap_begin iface-parent-driver
ktap_at_exit cleanup
ov_snapshot >"$snap"

echo Y >"$defer"
ktap_check apply ov_apply_dtbo mfd-populate
check_device bus_device platform "$bus"
dev=$(dev_of_node platform "$bus")
ktap_eq bus_deferred "" "$(driver_of platform "$dev")"
check_bound cell_bound platform "$cell" ovpop-test-platform
check_bound amba_bound amba "$amba" ovpop-test-amba
ktap_eq amba_claims_registers 1 "$(amba_claims)"
ktap_eq report_lists_three 3 "$(ov_devices mfd-populate | wc -l)"

# the bus's driver binds and populates: nothing new, ovpop's stay
echo N >"$defer"
echo "$dev" >/sys/bus/platform/drivers_probe
check_bound bus_bound platform "$bus" ovpop-test-platform
check_bound cell_kept platform "$cell" ovpop-test-platform
check_bound amba_kept amba "$amba" ovpop-test-amba

# unbinding it depopulates: the children go, ovpop's records with them
ktap_check unbind sh -c "echo $dev >$drv/unbind"
check_gone cell_depopulated "$cell"
check_gone amba_depopulated "$amba"
ktap_eq report_lists_bus 1 "$(ov_devices mfd-populate | wc -l)"
ktap_check amba_released wait_until 6 amba_released

# binding it again populates again: the kernel's devices now
ktap_check bind sh -c "echo $dev >$drv/bind"
check_bound cell_repopulated platform "$cell" ovpop-test-platform
check_bound amba_repopulated amba "$amba" ovpop-test-amba

# unbound again, then the overlay removed; and once more, removed bound
ktap_check unbind_again sh -c "echo $dev >$drv/unbind"
ktap_check remove_unbound ov_remove mfd-populate
check_gone bus_gone "$bus"
check_gone cell_gone "$cell"
check_gone amba_gone "$amba"
ktap_check amba_released_again wait_until 6 amba_released

ktap_check apply_bound ov_apply_dtbo mfd-populate
check_bound cell_bound_again platform "$cell" ovpop-test-platform
check_bound bus_bound_again platform "$bus" ovpop-test-platform
ktap_check remove_bound ov_remove mfd-populate
check_gone all_gone "$bus"
echo Y >"$defer"
check_snapshot nothing_left "$snap"
ktap_end
