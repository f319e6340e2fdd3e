#!/bin/sh
# A removal that the kernel completes but reports as failed
# (overlays/rtc.dtso, rtc-disable.dtso, rtc-twin.dtso): of_overlay_remove()
# removes an overlay even when a reconfig notifier fails, sets the id to 0
# and returns the error. Here the notifier that fails is ovpop's: removing
# rtc-disable enables the PL031 again, whose AMBA device cannot be added
# while rtc-twin holds its registers (-EBUSY). The item must go (rmdir) or
# read unapplied (dtbocfg's status 0) with the error reported, and nothing
# may stay behind that blocks the other overlays' removal or a second
# apply of the same item (dtbocfg: status 0, then 1).
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

ov=$OVPOP_DIR/overlays
rtc=/rtc@9010000
twin=/rtc-twin@9010000
snap="$OV_TMP/iface-removal.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	for i in rtc-twin rtc-disable rtc; do
		[ -d "$OV_CFS/$i" ] && echo 0 >"$OV_CFS/$i/status" 2>/dev/null
	done
	ov_remove rtc-twin rtc-disable rtc
	if [ "$(cat /sys/module/ovpop/parameters/dialect 2>/dev/null)" != ovpop ]; then
		rmmod ovpop 2>/dev/null
		insmod "$OVPOP_DIR/ovpop.ko"
	fi
	rm -f "$snap"
}

# kmsg_count ERE: how many lines of the kernel log match
kmsg_count() {
	dmesg | grep -cE "$1"
}

stuck='Could not find overlay|cannot remove; it stays applied|still cannot remove'

# The three overlays, the PL031 disabled and its twin bound: $1 applies one
setup() { # CASE-PREFIX APPLY-FUNCTION
	ktap_check "$1_rtc" "$2" rtc
	check_bound "$1_rtc_bound" amba "$rtc" rtc-pl031
	ktap_check "$1_disable" "$2" rtc-disable
	check_gone "$1_rtc_disabled" "$rtc"
	ktap_check "$1_twin" "$2" rtc-twin
	check_bound "$1_twin_bound" amba "$twin" rtc-pl031
}

ktap_begin iface-removal
ktap_at_exit cleanup
ov_snapshot >"$snap"

# --- rmdir ---------------------------------------------------------------
setup rmdir ov_apply_dtbo
before=$(kmsg_count "$stuck")
ktap_check rmdir_disable rmdir "$OV_CFS/rtc-disable"
ktap_eq rmdir_item_gone missing "$(ov_status rtc-disable)"
ktap_check rmdir_error_logged sh -c \
	"dmesg | grep -qE 'ovpop: rtc-disable: removed, but .*(-EBUSY|-16)'"
check_bound rmdir_twin_kept amba "$twin" rtc-pl031
ktap_check rmdir_remove_twin ov_remove rtc-twin
ktap_check rmdir_remove_rtc ov_remove rtc
ktap_eq rmdir_nothing_stuck "$before" "$(kmsg_count "$stuck")"
check_snapshot rmdir_nothing_left "$snap"

# --- dtbocfg: status 0, then 1 -------------------------------------------
rmmod ovpop
ktap_check insmod_dtbocfg insmod "$OVPOP_DIR/ovpop.ko" dialect=dtbocfg

# dtbocfg_apply NAME: store the blob, apply it
# shellcheck disable=SC2317 # run through setup
dtbocfg_apply() {
	mkdir "$OV_CFS/$1" &&
		cat "$ov/$1.dtbo" >"$OV_CFS/$1/dtbo" &&
		echo 1 >"$OV_CFS/$1/status" &&
		[ "$(cat "$OV_CFS/$1/status")" = 1 ]
}

setup dtbocfg dtbocfg_apply
before=$(kmsg_count "$stuck")
echo 0 >"$OV_CFS/rtc-disable/status" 2>/dev/null
ktap_eq dtbocfg_unapplied 0 "$(cat "$OV_CFS/rtc-disable/status")"
ktap_match dtbocfg_error '^(-EBUSY|-16): removed, but ' \
	"$(cat "$OV_CFS/rtc-disable/error")"
# applied again and removed again: the same failure, the same state
ktap_check dtbocfg_reapply sh -c "echo 1 >$OV_CFS/rtc-disable/status"
ktap_eq dtbocfg_reapplied 1 "$(cat "$OV_CFS/rtc-disable/status")"
echo 0 >"$OV_CFS/rtc-disable/status" 2>/dev/null
ktap_eq dtbocfg_unapplied_again 0 "$(cat "$OV_CFS/rtc-disable/status")"
ktap_check dtbocfg_remove_twin sh -c "echo 0 >$OV_CFS/rtc-twin/status"
# now the PL031 can have its registers: applied and removed cleanly
ktap_check dtbocfg_disable_again sh -c "echo 1 >$OV_CFS/rtc-disable/status"
ktap_check dtbocfg_enable sh -c "echo 0 >$OV_CFS/rtc-disable/status"
ktap_eq dtbocfg_no_error "" "$(cat "$OV_CFS/rtc-disable/error")"
check_bound dtbocfg_rtc_back amba "$rtc" rtc-pl031
ktap_check dtbocfg_remove_rtc sh -c "echo 0 >$OV_CFS/rtc/status"
ktap_check dtbocfg_rmdir ov_remove rtc-twin rtc-disable rtc
ktap_eq dtbocfg_nothing_stuck "$before" "$(kmsg_count "$stuck")"
rmmod ovpop
insmod "$OVPOP_DIR/ovpop.ko"
check_snapshot dtbocfg_nothing_left "$snap"
ktap_end
