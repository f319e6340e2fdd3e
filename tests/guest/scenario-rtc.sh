#!/bin/sh
# Scenario rtc (overlays/rtc.dtso): QEMU's PL031 added under / must become
# an AMBA device bound to rtc-pl031 with a working RTC class device, and
# leave nothing behind when the overlay is removed. Mainline makes it a
# platform device without a driver.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

node=/rtc@9010000
snap="$OV_TMP/scenario-rtc.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove rtc
	rm -f "$snap"
}

ktap_begin scenario-rtc
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check apply ov_apply_dtbo rtc
check_dt node_added "$node" yes
check_bound amba_device_rtc_pl031 amba "$node" rtc-pl031
rtcdev=$OV_DEV

if plat=$(dev_of_node platform "$node"); then
	ktap_fail no_platform_device "platform device $plat for a primecell"
else
	ktap_ok no_platform_device
fi

rtc=
if [ -n "$rtcdev" ]; then
	for r in "/sys/bus/amba/devices/$rtcdev"/rtc/rtc*; do
		[ -d "$r" ] && rtc=${r##*/}
	done
fi
if [ -n "$rtc" ] && [ -d "/sys/class/rtc/$rtc" ]; then
	ktap_ok rtc_class_device
	ktap_match rtc_time '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$' \
		"$(cat "/sys/class/rtc/$rtc/time" 2>&1)"
	ktap_match rtc_date '^20[0-9][0-9]-[01][0-9]-[0-3][0-9]$' \
		"$(cat "/sys/class/rtc/$rtc/date" 2>&1)"
else
	ktap_fail rtc_class_device "no rtc class device under the PL031"
	ktap_fail rtc_time "no rtc class device"
	ktap_fail rtc_date "no rtc class device"
fi

ktap_check remove ov_remove rtc
check_dt node_removed "$node" no
check_gone device_removed "$node"
if [ -n "$rtc" ] && [ -e "/sys/class/rtc/$rtc" ]; then
	ktap_fail rtc_class_removed "/sys/class/rtc/$rtc still exists"
else
	ktap_ok rtc_class_removed
fi
at=$(ov_alarmtimer_pinned)
if [ -n "$at" ]; then
	ktap_diag "mainline alarmtimer keeps the first RTC: $at left dangling"
fi
check_snapshot nothing_left "$snap"
ktap_end
