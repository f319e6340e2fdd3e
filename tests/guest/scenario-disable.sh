#!/bin/sh
# Scenario disable (overlays/disable-target.dtso, then disable-other.dtso):
# a second overlay sets status = "disabled" on a platform device and on a
# primecell that the first overlay added. Both devices go while it is
# applied and come back, bound again, when it is removed. Mainline creates
# the primecell as a platform device.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

plat=/ovpop-dis-plat@c300000
amba=/ovpop-dis-amba@c301000
snap="$OV_TMP/scenario-disable.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove disable-other disable-target
	rm -f "$snap"
}

both_bound() { # CASE-SUFFIX
	check_bound "platform_device_$1" platform "$plat" ovpop-test-platform
	check_bound "amba_device_$1" amba "$amba" ovpop-test-amba
}

ktap_begin scenario-disable
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check apply_target ov_apply_dtbo disable-target
both_bound bound

ktap_check apply_disable ov_apply_dtbo disable-other
check_gone platform_device_disabled "$plat"
check_gone amba_device_disabled "$amba"
check_dt platform_node_kept "$plat" yes
check_dt amba_node_kept "$amba" yes

ktap_check remove_disable ov_remove disable-other
both_bound back

ktap_check remove_target ov_remove disable-target
check_gone platform_device_removed "$plat"
check_gone amba_device_removed "$amba"
check_snapshot nothing_left "$snap"
ktap_end
