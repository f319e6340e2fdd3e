#!/bin/sh
# Scenario addon-board (overlays/addon-board.dtso): a new simple-bus with a
# PL061 GPIO controller (AMBA, pl061_gpio), a GPIO LED (leds-gpio) on it and
# a fixed regulator. All must be created below the bus device in sysfs, the
# LED must work, and everything must go with the overlay. Mainline creates
# only the bus device.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

bus=/addon-bus@9030000
gpio=$bus/gpio@0
leds=$bus/leds
reg=$bus/regulator-addon-3v3
led=addon:green:status
snap="$OV_TMP/scenario-addon-board.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove addon-board
	rm -f "$snap"
}

# The regulator class device named $1, or "".
regulator_named() {
	for r in /sys/class/regulator/*; do
		if [ "$(cat "$r/name" 2>/dev/null)" = "$1" ]; then
			echo "${r##*/}"
			return 0
		fi
	done
	return 1
}

# The LED's GPIO line in /sys/kernel/debug/gpio ("gpio-N (|label) out hi").
gpio_line() {
	grep -F "|$led" /sys/kernel/debug/gpio 2>/dev/null | sed 's/  */ /g'
}

ktap_begin scenario-addon-board
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check apply ov_apply_dtbo addon-board

check_device bus_device platform "$bus"
busdir=$OV_DIR

check_bound pl061_amba_device amba "$gpio" pl061_gpio
gpiodev=$OV_DEV
if [ -n "$gpiodev" ]; then
	check_under pl061_below_bus "$(dev_path amba "$gpiodev")" "$busdir"
else
	ktap_fail pl061_below_bus "no PL061 device"
fi
if plat=$(dev_of_node platform "$gpio"); then
	ktap_fail pl061_no_platform_device "platform device $plat for a primecell"
else
	ktap_ok pl061_no_platform_device
fi

check_bound leds_device platform "$leds" leds-gpio
ledsdev=$OV_DEV
ledcls=/sys/class/leds/$led
if [ -e "$ledcls" ]; then
	ktap_ok led_class_device
	check_under led_below_bus "$(readlink -f "$ledcls")" "$busdir"
	if echo 1 >"$ledcls/brightness" &&
	   [ "$(cat "$ledcls/brightness")" != 0 ]; then
		on=$(gpio_line)
		echo 0 >"$ledcls/brightness"
		off=$(gpio_line)
		ktap_ok led_set
		if [ -r /sys/kernel/debug/gpio ]; then
			ktap_match led_drives_pl061_line 'out hi.*/.*out lo' "$on/$off"
		else
			ktap_skip led_drives_pl061_line "no /sys/kernel/debug/gpio"
		fi
	else
		ktap_fail led_set "could not switch $led on"
		ktap_fail led_drives_pl061_line "could not switch $led on"
	fi
else
	ktap_fail led_class_device "no $ledcls"
	ktap_fail led_below_bus "no LED"
	ktap_fail led_set "no LED"
	ktap_fail led_drives_pl061_line "no LED"
fi
[ -n "$ledsdev" ] || ktap_diag "leds device missing"

check_bound regulator_device platform "$reg" reg-fixed-voltage
regdev=$OV_DEV
if rc=$(regulator_named addon-3v3); then
	ktap_ok regulator_class_device
else
	ktap_fail regulator_class_device "no regulator named addon-3v3"
fi
if [ -n "$regdev" ]; then
	check_under regulator_below_bus "$(dev_path platform "$regdev")" "$busdir"
else
	ktap_fail regulator_below_bus "no regulator device"
fi

ktap_check remove ov_remove addon-board
check_dt node_removed "$bus" no
check_gone gpio_removed "$gpio"
check_gone leds_removed "$leds"
check_gone regulator_removed "$reg"
check_gone bus_removed "$bus"
if [ -e "$ledcls" ] ||
   { [ -n "$rc" ] && [ -e "/sys/class/regulator/$rc" ]; }; then
	ktap_fail class_devices_removed "LED or regulator class device left"
else
	ktap_ok class_devices_removed
fi
check_snapshot nothing_left "$snap"
ktap_end
