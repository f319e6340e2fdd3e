#!/bin/sh
# Driver autoloading, as on a distribution kernel (the "modules" lane,
# ovpop_lane=modules, on the 6.12 kernel: scripts/configs/
# arm64-modules.config): the drivers the overlays need are modules in
# /lib/modules/<kver>/ with depmod's modules.alias, none loaded, and busybox
# mdev is the uevent helper (tests/guest/init). Applying
# overlays/addon-board.dtso (PL061: AMBA, gpio-pl061; LED: platform,
# leds-gpio; fixed regulator: platform, regulator-fixed) and
# overlays/rtc-noalarm.dtso (PL031: AMBA, rtc-pl031) must load the four
# modules and bind the devices with nobody running modprobe: each device's
# uevent carries a MODALIAS that modules.alias maps to its module. With the
# uevent helper switched off the same overlay must leave the modules
# unloaded and the devices unbound (what the positive checks rely on).
# Removing the overlays must leave every module unused (refcount 0) and
# unloadable; they are unloaded. Skipped in every other lane (the other
# kernels build the drivers in; the other boots of this one load them all
# at boot).
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

kver=$(uname -r)
moddir=/lib/modules/$kver
helper=/sbin/mdev
bus=/addon-bus@9030000
gpio=$bus/gpio@0
leds=$bus/leds
reg=$bus/regulator-addon-3v3
rtc=/rtc@9010000
mdevlog=/dev/mdev.log
# seconds for modprobe through mdev under TCG; the run shows the real figure
tmo=20

# One line per device: bus, DT node, driver, module (as in /proc/modules),
# the ERE its MODALIAS must match (AMBA: from its id; see modalias_want).
devices="amba $gpio pl061_gpio gpio_pl061 amba
platform $leds leds-gpio leds_gpio ^of:NledsT.*Cgpio-leds(C|$)
platform $reg reg-fixed-voltage fixed ^of:Nregulator-addon-3v3T.*Cregulator-fixed(C|$)
amba $rtc rtc-pl031 rtc_pl031 amba"
modules="gpio_pl061 leds_gpio fixed rtc_pl031"
board="gpio_pl061 leds_gpio fixed"

ktap_begin autoload
if [ "${OV_LANE:-}" != modules ]; then
	ktap_skip autoload "not the modules lane (6.12/arm64/modules): the drivers are built in or were loaded at boot"
	ktap_end
fi
ktap_check modules_alias [ -f "$moddir/modules.alias" ]

# the helper as /init left it, restored after the negative case
found=$(cat /proc/sys/kernel/hotplug)

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	echo "$found" >/proc/sys/kernel/hotplug
	ov_remove autoload-rtc autoload-board autoload-nohelper
	rm -f "$mdevlog"
	for m in $modules; do
		ov_loaded "$m" && rmmod "$m"
	done
}
ktap_at_exit cleanup

# The modules whose aliases in modules.alias match MODALIAS $1 (the same
# shell pattern match as modprobe's fnmatch), space-separated.
alias_modules() {
	al__found=
	while read -r al__kw al__pat al__mod; do
		[ "$al__kw" = alias ] || continue
		# shellcheck disable=SC2254 # the alias is a pattern
		case $1 in
		$al__pat)
			case " $al__found " in
			*" $al__mod "*) ;;
			*) al__found="$al__found $al__mod" ;;
			esac
			;;
		esac
	done <"$moddir/modules.alias"
	echo "${al__found# }"
}

# The MODALIAS of the device BUS/NAME's uevent file.
modalias_of() {
	sed -n 's/^MODALIAS=//p' "/sys/bus/$1/devices/$2/uevent" 2>/dev/null
}

# The ERE the MODALIAS of BUS/NAME must match: WANT, or for AMBA the
# kernel's "amba:d<periphid in upper-case hex>" from the device's id.
modalias_want() {
	if [ "$3" = amba ]; then
		printf '^amba:d%s$\n' "$(tr a-f A-F <"/sys/bus/$1/devices/$2/id")"
	else
		printf '%s\n' "$3"
	fi
}

# none_loaded MODULE...: none of them is in /proc/modules.
# shellcheck disable=SC2317 # run through ktap_check or wait_until
none_loaded() {
	for m in "$@"; do
		if ov_loaded "$m"; then
			echo "$m is loaded"
			return 1
		fi
	done
}

# dev_bound BUS NODE DRIVER: the node's device on BUS is bound to DRIVER.
# shellcheck disable=SC2317 # run through ktap_check or wait_until
dev_bound() {
	db__d=$(dev_of_node "$1" "$2") && [ "$(driver_of "$1" "$db__d")" = "$3" ]
}

# board_unbound: each device of the add-on board exists without a driver.
# shellcheck disable=SC2317 # run through ktap_check or wait_until
board_unbound() {
	for bu__n in "amba $gpio" "platform $leds" "platform $reg"; do
		# shellcheck disable=SC2086 # bus and node
		set -- $bu__n
		if ! bu__d=$(dev_of_node "$1" "$2"); then
			echo "no $1 device for $2"
			return 1
		fi
		bu__drv=$(driver_of "$1" "$bu__d")
		if [ -n "$bu__drv" ]; then
			echo "$1 device $bu__d bound to $bu__drv"
			return 1
		fi
	done
}

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# --- before: the setup a distribution has -----------------------------
ktap_eq uevent_helper_is_mdev "$helper" "$found"
# shellcheck disable=SC2016 # mdev's variable, literally
ktap_check mdev_conf_loads_by_modalias grep -q '^\$MODALIAS=.*@modprobe ' /etc/mdev.conf
for m in $modules; do
	ktap_check "${m}_in_modules_dep" grep -q "/$(echo "$m" | tr _ -)\.ko:" \
		"$moddir/modules.dep"
	ktap_check "${m}_has_aliases" grep -q " $m\$" "$moddir/modules.alias"
	if ov_loaded "$m"; then
		ktap_fail "${m}_not_loaded_before" "$m is loaded before any overlay"
	else
		ktap_ok "${m}_not_loaded_before"
	fi
done

# --- negative: without the uevent helper nothing loads them -----------
echo >/proc/sys/kernel/hotplug
ktap_check nohelper_apply ov_apply_dtbo autoload-nohelper \
	"$OVPOP_DIR/overlays/addon-board.dtbo"
# longer than mdev takes below (the first device binds within 1 s of the
# apply under TCG, the last within 3-5 s counting the checks in between)
sleep 5
ktap_check nohelper_devices_unbound board_unbound
# shellcheck disable=SC2086 # a list of modules
ktap_check nohelper_modules_not_loaded none_loaded $board
ktap_check nohelper_remove ov_remove autoload-nohelper
echo "$found" >/proc/sys/kernel/hotplug

# --- with mdev: apply, and the modules load and bind -----------------
: >"$mdevlog"
t0=$(uptime_s)
ktap_check board_apply ov_apply_dtbo autoload-board "$OVPOP_DIR/overlays/addon-board.dtbo"
ktap_check rtc_apply ov_apply_dtbo autoload-rtc "$OVPOP_DIR/overlays/rtc-noalarm.dtbo"
while IFS=' ' read -r b node drv mod want; do
	took=
	if wait_until "$tmo" dev_bound "$b" "$node" "$drv"; then
		ktap_ok "${mod}_bound"
		took=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')
	elif d=$(dev_of_node "$b" "$node"); then
		ktap_fail "${mod}_bound" "$b device $d of $node bound to '$(driver_of "$b" "$d")', not $drv (after ${tmo}s)"
	else
		ktap_fail "${mod}_bound" "no $b device for $node"
	fi
	ktap_check "${mod}_loaded" ov_loaded "$mod"
	if d=$(dev_of_node "$b" "$node"); then
		ma=$(modalias_of "$b" "$d")
		ktap_diag "$b $d MODALIAS=$ma: $mod loaded and bound within ${took:-?} s of the apply"
		ktap_match "${mod}_uevent_modalias" "$(modalias_want "$b" "$d" "$want")" "$ma"
		ktap_eq "${mod}_modalias_resolves" "$mod" "$(alias_modules "$ma")"
		ktap_check "${mod}_add_event_seen_by_mdev" \
			grep -Eq "ACTION:add .*SUBSYSTEM:$b .*DEVPATH:[^ ]*/$d( |\$)" "$mdevlog"
	else
		ktap_fail "${mod}_uevent_modalias" "no device"
		ktap_fail "${mod}_modalias_resolves" "no device"
		ktap_fail "${mod}_add_event_seen_by_mdev" "no device"
	fi
done <<EOF
$devices
EOF
rm -f "$mdevlog"

# --- remove: the modules are unused and unload ------------------------
ktap_check rtc_remove ov_remove autoload-rtc
ktap_check board_remove ov_remove autoload-board
for n in "$gpio" "$leds" "$reg" "$rtc"; do
	check_gone "gone_${n##*/}" "$n"
done
# shellcheck disable=SC2317 # run through ktap_check or wait_until
refcnt_zero() {
	[ "$(cat "/sys/module/$1/refcnt" 2>&1)" = 0 ]
}
for m in $modules; do
	if wait_until 3 refcnt_zero "$m"; then
		ktap_ok "${m}_unused"
	else
		ktap_fail "${m}_unused" "refcnt $(cat "/sys/module/$m/refcnt" 2>&1), holders: $(ls "/sys/module/$m/holders" 2>&1)"
	fi
	ktap_check "${m}_rmmod" rmmod "$m"
	ktap_check "${m}_unloaded" none_loaded "$m"
done
ktap_end
