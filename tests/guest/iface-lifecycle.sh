#!/bin/sh
# Lifecycle cases: removing an overlay while its device's probe is
# deferred, and after it bound; a device below the overlay's device that
# is released 1.5 s late (the removal waits for it: module/release.c),
# also by a holder that needs the OF core's of_mutex first (the wait must
# not hold it); unbinding the driver while the overlay is
# being removed; rmmod while overlays are applied (configfs holds the
# module: it must fail and change nothing), then rmmod and insmod again.
# The loader's rollback of a half-created overlay is in badinput.sh
# (broken/resource-conflict), two overlays adding to one bus in
# scenario-existing-bus.sh and iface-stack.sh.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

defer=/sys/module/ovpop_testdrv/parameters/defer_probe
deferred=/sys/kernel/debug/devices_deferred
node=/ovpop-defer@c602000
snap="$OV_TMP/lifecycle.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	echo Y >"$defer"
	ov_remove defer late-release late-release-locked periphid rtc
	[ -d /sys/module/ovpop ] || insmod "$OVPOP_DIR/ovpop.ko"
	rm -f "$snap"
}

ktap_begin iface-lifecycle
ktap_at_exit cleanup
ov_snapshot >"$snap"

# --- deferred probe ---------------------------------------------------------------
echo Y >"$defer"
ktap_check defer_apply ov_apply_dtbo defer
check_device defer_device platform "$node"
dev=$(dev_of_node platform "$node")
ktap_eq defer_unbound "" "$(driver_of platform "$dev")"
ktap_check defer_listed grep -q "^$dev" "$deferred"
ktap_check defer_remove_while_deferred ov_remove defer
check_gone defer_gone "$node"
ktap_check defer_not_listed_after_removal sh -c "! grep -q ovpop-defer '$deferred'"

ktap_check defer_apply_again ov_apply_dtbo defer
check_device defer_device_again platform "$node"
dev=$(dev_of_node platform "$node")
echo N >"$defer"
echo "$dev" >/sys/bus/platform/drivers_probe
check_bound defer_bound_after_release platform "$node" ovpop-test-platform
ktap_check defer_remove_bound ov_remove defer
check_gone defer_gone_bound "$node"
echo Y >"$defer"

# --- a device released late -----------------------------------------------------------
# late_release CASE ITEM NODE: the removal waits for the late release (1.5 s),
# not much longer, and the OF core reports no leak
late_release() {
	ktap_check "$1_apply" ov_apply_dtbo "$2"
	check_bound "$1_bound" platform "$3" ovpop-test-platform
	dev=$(dev_of_node platform "$3")
	ktap_check "$1_child_holds_node" [ -d "/sys/bus/platform/devices/$dev/$dev.late" ]
	leaks0=$(dmesg | grep -c 'expected refcount')
	t0=$(cut -d' ' -f1 /proc/uptime)
	ktap_check "$1_remove" ov_remove "$2"
	t1=$(cut -d' ' -f1 /proc/uptime)
	ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
	ktap_diag "$1: the removal took ${ms} ms (the child is put 1500 ms after the unbind)"
	ktap_check "$1_removal_waited" [ "$ms" -ge 1000 ]
	ktap_check "$1_removal_not_stalled" [ "$ms" -lt 8000 ]
	ktap_eq "$1_no_leak_report" "$leaks0" "$(dmesg | grep -c 'expected refcount')"
	check_gone "$1_gone" "$3"
}
late_release late late-release /ovpop-late@c603000
# the holder of the last reference waits for of_mutex: the removal must not
# wait for it under that lock
late_release late_locked late-release-locked /ovpop-late-locked@c604000

# --- unbind racing the removal --------------------------------------------------------
races=10
ok=0
i=0
while [ "$i" -lt "$races" ]; do
	i=$((i + 1))
	ov_apply_dtbo periphid || break
	dev=$(dev_of_node amba /ovpop-periphid@c000000) || break
	(echo "$dev" >/sys/bus/amba/drivers/ovpop-test-amba/unbind) 2>/dev/null &
	ov_remove periphid || break
	wait
	dev_of_node_any /ovpop-periphid@c000000 >/dev/null || ok=$((ok + 1))
done
ktap_eq unbind_during_removal "$races" "$ok"
ktap_diag "unbind racing removal: $ok of $races rounds left nothing behind"

# --- rmmod with an overlay applied -------------------------------------------------------
ktap_check rmmod_apply ov_apply_dtbo rtc
if rmmod ovpop 2>/dev/null; then
	ktap_fail rmmod_refused_while_applied "rmmod succeeded"
	insmod "$OVPOP_DIR/ovpop.ko"
else
	ktap_ok rmmod_refused_while_applied
fi
ktap_eq rmmod_still_applied applied "$(ov_status rtc)"
check_bound rmmod_device_stays amba /rtc@9010000 rtc-pl031
ktap_check rmmod_remove ov_remove rtc
if lsmod | grep -q '^ovpop_consumer'; then
	ktap_skip rmmod_insmod "ovpop_consumer is loaded"
else
	ktap_check rmmod_after_removal rmmod ovpop
	ktap_check insmod_again insmod "$OVPOP_DIR/ovpop.ko"
	ktap_check configfs_back [ -d "$OV_CFS" ]
fi
check_snapshot nothing_left "$snap"
ktap_end
