#!/bin/sh
# Scenario board-raspi3b (the Raspberry Pi 3B lane, OVPOP_BOARD=raspi3b; the
# kernel's bcm2837-rpi-3-b.dts on QEMU's raspi3b): the HAT-style overlays of
# overlays/boards/raspi3b-*.dtso on the board's own tree.
# - LEDs, buttons, a 1-Wire master, a bit-banged I2C bus with its EEPROM
#   client, a GPIO-enabled regulator: each device bound to its driver,
#   below the right parent in sysfs, its GPIO lines claimed on the BCM2835
#   (the buttons' as interrupts too) and freed on removal (the pin groups
#   the overlays add to &gpio get no device);
# - the board's own devices and drivers, on every bus, untouched while the
#   HAT is applied and after it is removed;
# - the PL011 (uart0) disabled by one overlay and enabled again by a second
#   one: an AMBA device bound to uart-pl011 with its tty, each time;
# - 100 apply/remove rounds of the HAT with memory flat.
# The kernel alone creates the HAT's devices too (they sit at the root,
# whose bus its notifier watches): that half shows that ovpop does the
# same and no harm. It leaves the disabled PL011's AMBA device in place
# (its notifier looks for platform devices only): the control boot fails
# there.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

hat="raspi3b-hat-leds raspi3b-hat-buttons raspi3b-w1-gpio raspi3b-i2c-gpio raspi3b-hat-regulator"
gpio=/soc/gpio@7e200000
uart0=/soc/serial@7e201000
cycles=100
snap="$OV_TMP/scenario-board-raspi3b.snap"
board="$OV_TMP/scenario-board-raspi3b.board"
during="$OV_TMP/scenario-board-raspi3b.during"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove raspi3b-uart0-enable raspi3b-uart0-disable
	hat_remove
	rm -f "$snap" "$board" "$during"
}

# shellcheck disable=SC2317 # run by ktap_check and hat_round
hat_apply() {
	for h in $hat; do
		ov_apply_dtbo "$h" "$OVPOP_DIR/overlays/boards/$h.dtbo" || return 1
	done
}

# newest first
# shellcheck disable=SC2317 # run by ktap_check, cleanup and hat_round
hat_remove() {
	r=
	for h in $hat; do
		r="$h $r"
	done
	# shellcheck disable=SC2086 # a list of names
	ov_remove $r
}

# gpio_line N: "CONSUMER FLAGS" of BCM2835 line N from debugfs's list of
# the requested lines ("" if it is free), e.g. "hat-a in hi IRQ ACTIVE
# LOW"; fails (status 2) if the list has no BCM2835 chip
gpio_line() {
	awk -v n="$1" '
	/^[^ ].*: GPIOs [0-9]+-[0-9]+/ {
		bcm = /pinctrl-bcm2835/
		if (bcm) seen = 1
		split($0, a, "GPIOs ")
		base = a[2] + 0
		next
	}
	bcm && $1 == "gpio-" (base + n) {
		l = $0
		if (!sub(/^[^|]*[|]/, "", l)) exit
		f = l
		sub(/[)].*$/, "", l)
		sub(/ +$/, "", l)
		sub(/^[^)]*[)] */, "", f)
		sub(/ +$/, "", f)
		print l " " f
		exit
	}
	END { if (!seen) exit 2 }' /sys/kernel/debug/gpio
}

# check_gpio CASE LINE CONSUMER [FLAG]: LINE of the BCM2835 is claimed by
# CONSUMER (with FLAG among its flags, e.g. IRQ); CONSUMER "" for free
check_gpio() {
	if ! gl=$(gpio_line "$2"); then
		ktap_fail "$1" "no BCM2835 chip in /sys/kernel/debug/gpio"
		return 1
	fi
	ktap_eq "$1" "$3" "${gl%% *}" || return 1
	[ -z "${4:-}" ] || ktap_match "$1_$4" " $4( |\$)" "$gl"
}

ktap_begin scenario-board-raspi3b
ktap_at_exit cleanup
ov_snapshot >"$snap"
ov_devices_all >"$board"

# --- the HAT --------------------------------------------------------------
ktap_check hat_apply hat_apply
ov_devices_all >"$during"
check_lines_kept board_devices_kept_while_applied "$board" "$during"

if check_bound leds_device platform /hat-leds leds-gpio; then
	d=$(dev_path platform "$OV_DEV")
	check_under leds_status_below "$(readlink -f /sys/class/leds/hat:green:status)" "$d"
	check_under leds_fault_below "$(readlink -f /sys/class/leds/hat:red:fault)" "$d"
fi
check_gpio leds_gpio17 17 hat:green:status
check_gpio leds_gpio27 27 hat:red:fault

if check_bound buttons_device platform /hat-buttons gpio-keys; then
	d=$(dev_path platform "$OV_DEV")
	ktap_check buttons_input_below sh -c "ls -d '$d'/input/input* >/dev/null"
fi
check_gpio buttons_gpio5 5 hat-a IRQ
check_gpio buttons_gpio6 6 hat-b IRQ

# The w1 core registers its bus masters at the top of /sys/devices, not
# below the device that drives them: one master, bound (the board has
# none), is what it shows.
check_bound w1_device platform /onewire w1-gpio
ktap_match w1_bus_master '^dev w1 w1_bus_master[0-9]+ driver=w1_master_driver$' \
	"$(ov_devices_all | grep '^dev w1 ')"
check_gpio w1_gpio4 4 onewire

if check_bound i2c_bus_device platform /i2c-gpio i2c-gpio; then
	d=$(dev_path platform "$OV_DEV")
	for a in "$d"/i2c-[0-9]*; do break; done
	if check_device i2c_client i2c /i2c-gpio/eeprom@50; then
		check_under i2c_client_below_adapter "$OV_DIR" "$a"
		ktap_match i2c_client_address '^[0-9]+-0050$' "${OV_DIR##*/}"
	fi
fi
check_gpio i2c_gpio23 23 sda
check_gpio i2c_gpio24 24 scl

if check_bound regulator_device platform /hat-3v3 reg-fixed-voltage; then
	d=$(dev_path platform "$OV_DEV")
	for r in "$d"/regulator/regulator.*; do break; done
	ktap_eq regulator_name hat-3v3 "$(cat "$r/name" 2>/dev/null)"
	ktap_eq regulator_enabled enabled "$(cat "$r/state" 2>/dev/null)"
fi
check_gpio regulator_gpio26 26 hat-3v3
for h in $hat; do
	check_devices_sysfs "report_true_${h#raspi3b-}" "$h"
done

# the pin groups added to the BCM2835's node: configuration, no device
for p in hat-led-pins hat-button-pins hat-w1-pins hat-i2c-pins; do
	check_gone "pin_group_no_device_$p" "$gpio/$p"
done

ktap_check hat_remove hat_remove
for n in /hat-leds /hat-buttons /onewire /i2c-gpio/eeprom@50 /i2c-gpio /hat-3v3; do
	check_gone "removed_${n##*/}" "$n"
done
for l in 4 5 6 17 23 24 26 27; do
	check_gpio "gpio${l}_free" "$l" ""
done
ktap_eq w1_bus_master_removed "" "$(ov_devices_all | grep '^dev w1 ')"
check_devices_all board_devices_same_after "$board"
check_snapshot hat_nothing_left "$snap"

# --- the PL011 -------------------------------------------------------------
# the PL011 bound, its tty (below its serial core port devices) too
uart_bound() { # CASE
	if check_bound "$1" amba "$uart0" uart-pl011; then
		check_under "$1_tty" "$(readlink -f /sys/class/tty/ttyAMA0)" \
			"$(dev_path amba "$OV_DEV")"
		ktap_check "$1_iomem" uart0_iomem
	fi
}
# /soc's ranges: bus address 0x7e201000 -> CPU 0x3f201000, 0x200 bytes;
# amba_device_add() requests it, the device's removal releases it
# shellcheck disable=SC2317 # run by ktap_check and ktap_refused
uart0_iomem() {
	grep -q '^ *3f201000-3f2011ff : ' /proc/iomem
}
# changing a property of the base tree
expect_kmsg "OF: overlay: WARNING: memory leak will occur if overlay removed, property: $uart0/status"
uart_bound uart0_at_boot
ktap_check uart0_disable ov_apply_dtbo raspi3b-uart0-disable \
	"$OVPOP_DIR/overlays/boards/raspi3b-uart0-disable.dtbo"
check_gone uart0_disabled "$uart0"
ktap_refused uart0_disabled_iomem_released uart0_iomem
check_dt uart0_node_kept "$uart0" yes
ktap_check uart0_enable ov_apply_dtbo raspi3b-uart0-enable \
	"$OVPOP_DIR/overlays/boards/raspi3b-uart0-enable.dtbo"
uart_bound uart0_enabled_again
ktap_check uart0_remove_enable ov_remove raspi3b-uart0-enable
check_gone uart0_disabled_again "$uart0"
ktap_check uart0_remove_disable ov_remove raspi3b-uart0-disable
uart_bound uart0_back
check_devices_all board_devices_same_after_uart0 "$board"

# --- cycles ----------------------------------------------------------------
# shellcheck disable=SC2317 # run by check_rounds
hat_round() {
	hat_apply && wait_until 3 ov__bound platform /hat-3v3 reg-fixed-voltage &&
		hat_remove
}
check_rounds "hat_${cycles}_rounds" "$cycles" hat_round
check_snapshot rounds_nothing_left "$snap"
check_devices_all rounds_board_devices_same "$board"
ktap_end
