#!/bin/sh
# The ovpop_populate() API (tests/modules/ovpop_consumer.c): overlay
# consumer-root adds /ovpop-consumer without compatible, so nothing is
# created for it or its children; loading ovpop_consumer populates it with
# an auxdata table (device names and platform_data, checked through
# ovpop_testdrv's ovpop_report); a child added later by consumer-more gets
# its auxdata too; unloading the consumer removes all of them.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

root=/ovpop-consumer
plat=$root/test@c400000
amba=$root/amba@c401000
more=$root/test@c402000
mod=$OVPOP_DIR/modules/ovpop_consumer.ko
snap="$OV_TMP/iface-consumer.snap"

# shellcheck disable=SC2317 # used by cleanup
loaded() {
	grep -q '^ovpop_consumer ' /proc/modules
}

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	loaded && rmmod ovpop_consumer
	ov_remove consumer-more consumer-root
	rm -f "$snap"
}

ktap_begin iface-consumer
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check apply_root ov_apply_dtbo consumer-root
check_dt root_node_added "$root" yes
check_gone no_device_for_root "$root"
check_gone no_device_before_populate "$plat"

ktap_check insmod_consumer insmod "$mod"

if check_bound platform_child platform "$plat" ovpop-test-platform; then
	check_report platform_child_auxdata platform "$OV_DEV" \
		'^bus=platform name=consumer-plat res=0xc400000-0xc400fff irq=none pdata=consumer-plat-pdata$'
else
	ktap_fail platform_child_auxdata "no device"
fi
if check_bound amba_child amba "$amba" ovpop-test-amba; then
	check_report amba_child_auxdata amba "$OV_DEV" \
		'^bus=amba name=consumer-amba res=0xc401000-0xc401fff irq=[0-9]+ pdata=consumer-amba-pdata periphid=0x0005a0c5$'
else
	ktap_fail amba_child_auxdata "no device"
fi
check_gone still_no_device_for_root "$root"

ktap_check apply_more ov_apply_dtbo consumer-more
if check_bound later_child platform "$more" ovpop-test-platform; then
	check_report later_child_auxdata platform "$OV_DEV" \
		'^bus=platform name=consumer-more res=0xc402000-0xc402fff irq=none pdata=consumer-more-pdata$'
else
	ktap_fail later_child_auxdata "no device"
fi

ktap_check remove_more ov_remove consumer-more
check_gone later_child_removed "$more"
check_bound platform_child_kept platform "$plat" ovpop-test-platform
ktap_check reapply_more ov_apply_dtbo consumer-more
check_bound later_child_back platform "$more" ovpop-test-platform

ktap_check rmmod_consumer rmmod ovpop_consumer
check_gone platform_child_depopulated "$plat"
check_gone amba_child_depopulated "$amba"
check_gone later_child_depopulated "$more"
check_dt nodes_kept "$more" yes

ktap_check remove_overlays ov_remove consumer-more consumer-root
check_dt root_node_removed "$root" no
check_snapshot nothing_left "$snap"
ktap_end
