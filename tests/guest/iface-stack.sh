#!/bin/sh
# Removal order. The kernel removes an overlay only if no overlay applied
# after it touches its nodes, their ancestors or descendants. The loader
# refuses such an rmdir with EBUSY, so an applied overlay never loses its
# configfs item; once the later overlay is gone, the rmdir works. Overlays
# that do not overlap can be removed in any order.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

snap="$OV_TMP/iface-stack.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove existing-bus-children existing-bus periphid conflict rtc \
		platform-bus-prop kernel-bus-children
	rm -f "$snap"
}

ktap_begin iface-stack
ktap_at_exit cleanup
ov_snapshot >"$snap"

# Overlapping: the children overlay adds nodes below the bus of the first.
ktap_check apply_bus ov_apply_dtbo existing-bus
ktap_check apply_children ov_apply_dtbo existing-bus-children
if err=$(rmdir "$OV_CFS/existing-bus" 2>&1); then
	ktap_fail rmdir_covered_refused "rmdir succeeded"
else
	ktap_match rmdir_covered_refused 'busy' "$err"
fi
ktap_eq covered_still_applied applied "$(ov_status existing-bus)"
check_bound covered_devices_stay platform /ovpop-exbus@c200000/test@0 ovpop-test-platform
ktap_check rmdir_top ov_remove existing-bus-children
ktap_check rmdir_uncovered ov_remove existing-bus
check_gone bus_gone /ovpop-exbus@c200000

# Not overlapping: two siblings under /, removed oldest first.
ktap_check apply_rtc ov_apply_dtbo rtc
ktap_check apply_periphid ov_apply_dtbo periphid
ktap_check rmdir_older_independent ov_remove rtc
check_gone rtc_gone /rtc@9010000
check_bound other_stays amba /ovpop-periphid@c000000 ovpop-test-amba
ktap_check rmdir_newer ov_remove periphid

# The later overlay above the earlier one: a property of the base tree's bus
# that the earlier one added children to.
ktap_check apply_kbus ov_apply_dtbo kernel-bus-children
expect_kmsg 'OF: overlay: WARNING: memory leak will occur if overlay removed, property: /platform-bus@c000000/ovpop,note'
ktap_check apply_bus_prop ov_apply_dtbo platform-bus-prop
if err=$(rmdir "$OV_CFS/kernel-bus-children" 2>&1); then
	ktap_fail rmdir_below_refused "rmdir succeeded"
else
	ktap_match rmdir_below_refused 'busy' "$err"
fi
ktap_check rmdir_above ov_remove platform-bus-prop
# Unrelated again (a sibling of the bus): oldest first
ktap_check apply_rtc_after_kbus ov_apply_dtbo rtc
ktap_check rmdir_kbus_older ov_remove kernel-bus-children
check_gone kbus_gone /platform-bus@c000000/test@300000
ktap_check rmdir_rtc_after_kbus ov_remove rtc

# A refused overlay leaves the stack as it was: the one applied before it
# can still be removed. Given to the kernel, the refused one would fail in
# its build and stay in its list with entries on /, blocking every removal
# (module/precheck.c refuses it first).
ktap_check apply_before_refused ov_apply_dtbo rtc
mkdir "$OV_CFS/conflict"
cat "$OVPOP_DIR/overlays/broken/dup-root-property.dtbo" >"$OV_CFS/conflict/dtbo"
ktap_eq conflict_refused unapplied "$(ov_status conflict)"
ktap_match conflict_error_names_it 'two fragments set ovpop,conflict of /$' \
	"$(cat "$OV_CFS/conflict/error")"
ktap_check conflict_rmdir rmdir "$OV_CFS/conflict"
ktap_check rmdir_after_refused ov_remove rtc
check_gone rtc_gone_after_refused /rtc@9010000
check_snapshot nothing_left "$snap"
ktap_end
