#!/bin/sh
# A walk-through for people (ovpop_mode=demo): apply QEMU's RTC and an
# add-on board (GPIO controller, LED, regulator) as overlays through
# configfs, show the devices and their drivers, blink the LED, remove the
# overlays and show that everything is gone. Expects ovpop.ko loaded (run.sh
# demo does it). Exits non-zero if something expected is missing.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

led=addon:green:status
problems=0

say() {
	printf '\n=== %s\n' "$*"
}

# Show a command, then run it.
run() {
	printf '$ %s\n' "$*"
	"$@"
}

missing() {
	printf '!!! MISSING: %s\n' "$*"
	problems=$((problems + 1))
}

# device BUS NODE: print the device of NODE with its driver link.
device() {
	if d=$(dev_of_node "$1" "$2"); then
		printf '%s device %s for node %s\n' "$1" "$d" "$2"
		run ls -l "/sys/bus/$1/devices/$d/driver" ||
			missing "no driver bound to $d"
	else
		missing "no $1 device for $2"
	fi
}

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove addon-board rtc
}
trap cleanup EXIT

say "ovpop: overlays through configfs at $OV_CFS"
run grep '^ovpop ' /proc/modules || missing "ovpop.ko is not loaded"

say "Apply the PL031 RTC (overlays/rtc.dtso)"
run mkdir "$OV_CFS/rtc"
printf '$ cat %s > %s\n' "$OVPOP_DIR/overlays/rtc.dtbo" "$OV_CFS/rtc/dtbo"
cat "$OVPOP_DIR/overlays/rtc.dtbo" >"$OV_CFS/rtc/dtbo"
run cat "$OV_CFS/rtc/status"
[ "$(ov_status rtc)" = applied ] || missing "rtc overlay not applied"

say "The RTC is an AMBA device, driven by rtc-pl031"
device amba /rtc@9010000
rtc=
if d=$(dev_of_node amba /rtc@9010000); then
	for r in "/sys/bus/amba/devices/$d"/rtc/rtc*; do
		[ -d "$r" ] && rtc=/sys/class/rtc/${r##*/}
	done
fi
if [ -n "$rtc" ] && [ -d "$rtc" ]; then
	run cat "$rtc/name" "$rtc/date" "$rtc/time"
else
	missing "no RTC class device for the PL031"
fi

say "Apply the add-on board (overlays/addon-board.dtso)"
run mkdir "$OV_CFS/addon-board"
printf '$ cat %s > %s\n' "$OVPOP_DIR/overlays/addon-board.dtbo" \
	"$OV_CFS/addon-board/dtbo"
expect_kmsg 'OF: overlay: WARNING: memory leak will occur if overlay removed, property: /__symbols__/'
cat "$OVPOP_DIR/overlays/addon-board.dtbo" >"$OV_CFS/addon-board/dtbo"
run cat "$OV_CFS/addon-board/status"
[ "$(ov_status addon-board)" = applied ] || missing "addon-board not applied"

say "The bus, and below it the GPIO controller, the LEDs and the regulator"
if bus=$(dev_of_node platform /addon-bus@9030000); then
	busdir=$(dev_path platform "$bus")
	run ls "$busdir"
else
	missing "no platform device for /addon-bus@9030000"
fi
device amba /addon-bus@9030000/gpio@0
device platform /addon-bus@9030000/leds
device platform /addon-bus@9030000/regulator-addon-3v3

say "The LED and the regulator in their classes"
run ls /sys/class/leds
[ -e "/sys/class/leds/$led" ] || missing "LED $led"
for r in /sys/class/regulator/*; do
	printf '%s: %s\n' "$r" "$(cat "$r/name")"
done
grep -qx addon-3v3 /sys/class/regulator/*/name ||
	missing "regulator addon-3v3"

if [ -e "/sys/class/leds/$led" ]; then
	say "Blink the LED (its PL061 line, from /sys/kernel/debug/gpio)"
	for v in 1 0 1 0 1 0; do
		echo "$v" >"/sys/class/leds/$led/brightness"
		printf 'brightness %s: %s\n' "$v" \
			"$(grep -h "$led" /sys/kernel/debug/gpio 2>/dev/null |
			   sed 's/  */ /g')"
		sleep 0.3
	done
fi

say "Remove both overlays"
run rmdir "$OV_CFS/addon-board"
run rmdir "$OV_CFS/rtc"
run ls "$OV_CFS"

say "Everything is gone"
for n in /addon-bus@9030000 /addon-bus@9030000/gpio@0 \
	 /addon-bus@9030000/leds /addon-bus@9030000/regulator-addon-3v3 \
	 /rtc@9010000; do
	if d=$(dev_of_node_any "$n"); then
		missing "device $d of $n still there"
	else
		printf 'no device for %s\n' "$n"
	fi
done
run ls /sys/class/leds /sys/class/rtc
[ -e "/sys/class/leds/$led" ] && missing "LED $led still there"
[ -n "$rtc" ] && [ -e "$rtc" ] && missing "$rtc still there"

say "Demo done: $problems problem(s)"
[ "$problems" -eq 0 ]
