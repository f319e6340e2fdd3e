#!/bin/sh
# Scenario periphid (overlays/periphid.dtso): a primecell at a fake address
# with arm,primecell-periphid forced to an id only ovpop_testdrv's AMBA
# driver matches. The AMBA device must carry the forced id (no hardware
# read), its reg and its interrupt, and bind to the test driver.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

node=/ovpop-periphid@c000000
snap="$OV_TMP/scenario-periphid.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove periphid
	rm -f "$snap"
}

ktap_begin scenario-periphid
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check apply ov_apply_dtbo periphid
if check_bound amba_device_test_driver amba "$node" ovpop-test-amba; then
	d=$OV_DEV
	check_report report amba "$d" \
		"^bus=amba name=$d res=0xc000000-0xc000fff irq=[0-9]+ pdata=none periphid=0x0005a0c5\$"
	ktap_eq amba_id_attribute 0005a0c5 "$(cat "/sys/bus/amba/devices/$d/id")"
	irq=$(ov_report amba "$d" | sed -n 's/.* irq=\([0-9]*\) .*/\1/p')
	if [ -z "$irq" ]; then
		ktap_fail irq_is_gic_spi_112 "no irq in the report"
	elif [ -r "/sys/kernel/irq/$irq/hwirq" ]; then
		# GIC hwirq numbers count the 32 private interrupts first.
		ktap_eq irq_is_gic_spi_112 144 "$(cat "/sys/kernel/irq/$irq/hwirq")"
	else
		ktap_skip irq_is_gic_spi_112 "no /sys/kernel/irq/$irq/hwirq"
	fi
else
	ktap_fail report "no device"
	ktap_fail amba_id_attribute "no device"
	ktap_fail irq_is_gic_spi_112 "no device"
fi
if plat=$(dev_of_node platform "$node"); then
	ktap_fail no_platform_device "platform device $plat for a primecell"
else
	ktap_ok no_platform_device
fi

ktap_check remove ov_remove periphid
check_dt node_removed "$node" no
check_gone device_removed "$node"
check_snapshot nothing_left "$snap"
ktap_end
