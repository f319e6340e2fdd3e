#!/bin/sh
# The dtbocfg dialect (insmod ovpop.ko dialect=dtbocfg), for scripts written
# for the dtbocfg module: status reads 0/1; a dtbo write only stores the
# blob (refused while applied); writing 1 to status applies it, 0 removes
# the overlay and keeps the directory; errors come back from the status
# write and show in error; a covered overlay is not removed. An unknown
# dialect fails insmod; the default dialect's status is read-only. Uses
# overlays/rtc.dtso, kernel-bus-children.dtso and platform-bus-prop.dtso.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

ov=$OVPOP_DIR/overlays
# errno names, or numbers without CONFIG_SYMBOLIC_ERRNAME
EBUSY='(-EBUSY|-16)'
EPERM='(-EPERM|-1)'
ENOENT='(-ENOENT|-2)'
EINVAL='(-EINVAL|-22)'

node=/rtc@9010000
snap="$OV_TMP/iface-dialect.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	for i in prop kbus rtc nothing bad path; do
		[ -d "$OV_CFS/$i" ] && echo 0 >"$OV_CFS/$i/status" 2>/dev/null
	done
	ov_remove prop kbus rtc nothing bad path plain
	if [ "$(cat /sys/module/ovpop/parameters/dialect 2>/dev/null)" != ovpop ]; then
		rmmod ovpop 2>/dev/null
		insmod "$OVPOP_DIR/ovpop.ko"
	fi
	rm -f "$snap"
}

# set_status ITEM VALUE: the write's exit status
# shellcheck disable=SC2317 # also run by ktap_refused
set_status() {
	echo "$2" >"$OV_CFS/$1/status" 2>/dev/null
}

ktap_begin iface-dialect
ktap_at_exit cleanup
ov_snapshot >"$snap"

expect_kmsg 'ovpop: dialect=bogus: must be ovpop or dtbocfg'
rmmod ovpop
if insmod "$OVPOP_DIR/ovpop.ko" dialect=bogus 2>/dev/null; then
	ktap_fail unknown_dialect_refused "insmod succeeded"
	rmmod ovpop
else
	ktap_ok unknown_dialect_refused
fi
ktap_check insmod_dtbocfg insmod "$OVPOP_DIR/ovpop.ko" dialect=dtbocfg
ktap_eq dialect_param dtbocfg "$(cat /sys/module/ovpop/parameters/dialect)"

# --- store, apply, remove, apply again --------------------------------------------
mkdir "$OV_CFS/rtc"
ktap_eq new_status_0 0 "$(cat "$OV_CFS/rtc/status")"
ktap_check dtbo_stores sh -c "cat '$ov/rtc.dtbo' >'$OV_CFS/rtc/dtbo'"
ktap_eq stored_not_applied 0 "$(cat "$OV_CFS/rtc/status")"
check_dt stored_no_node "$node" no
ktap_check stored_reads_back cmp -s "$ov/rtc.dtbo" "$OV_CFS/rtc/dtbo"
ktap_check status_1_applies set_status rtc 1
ktap_eq applied_status_1 1 "$(cat "$OV_CFS/rtc/status")"
check_bound applied_device amba "$node" rtc-pl031
ktap_match applied_reported "^amba [^ ]+ $node rtc-pl031\$" "$(ov_devices rtc)"
ktap_check status_1_again_harmless set_status rtc 1
# a dtbo write fails at close(), whose error cat cannot see: error shows it;
# EPERM as dtbocfg's and the RPi dialect's "already applied"
printf 'not a blob' >"$OV_CFS/rtc/dtbo" 2>/dev/null
ktap_match dtbo_refused_while_applied "^$EPERM: applied" "$(cat "$OV_CFS/rtc/error")"
ktap_check dtbo_kept cmp -s "$ov/rtc.dtbo" "$OV_CFS/rtc/dtbo"
ktap_eq still_applied 1 "$(cat "$OV_CFS/rtc/status")"
ktap_check status_0_removes set_status rtc 0
ktap_eq removed_status_0 0 "$(cat "$OV_CFS/rtc/status")"
check_gone removed_device_gone "$node"
check_dt removed_node_gone "$node" no
ktap_check removed_directory_stays [ -d "$OV_CFS/rtc" ]
ktap_check reapply set_status rtc 1
check_bound reapplied_device amba "$node" rtc-pl031
ktap_check rmdir_applied ov_remove rtc
check_gone rmdir_device_gone "$node"

# --- refusals: nothing stored, a broken blob, a bad value ------------------------
mkdir "$OV_CFS/nothing"
ktap_refused nothing_stored_refused set_status nothing 1
ktap_match nothing_stored_error "^$ENOENT: no blob stored" "$(cat "$OV_CFS/nothing/error")"
ktap_refused bad_value_refused set_status nothing yes
mkdir "$OV_CFS/bad"
printf 'not a blob' >"$OV_CFS/bad/dtbo"
ktap_refused broken_refused set_status bad 1
ktap_match broken_error "^$EINVAL: not a flattened device tree blob" "$(cat "$OV_CFS/bad/error")"
ktap_eq broken_status_0 0 "$(cat "$OV_CFS/bad/status")"
ov_remove nothing bad

# --- a covered overlay cannot be removed; the one above it can --------------------
mkdir "$OV_CFS/kbus" "$OV_CFS/prop"
cat "$ov/kernel-bus-children.dtbo" >"$OV_CFS/kbus/dtbo"
cat "$ov/platform-bus-prop.dtbo" >"$OV_CFS/prop/dtbo"
expect_kmsg 'OF: overlay: WARNING: memory leak will occur if overlay removed, property: /platform-bus@c000000/ovpop,note'
ktap_check stack_apply sh -c "echo 1 >'$OV_CFS/kbus/status' && echo 1 >'$OV_CFS/prop/status'"
ktap_refused covered_refused set_status kbus 0
ktap_match covered_error "^$EBUSY: covered by a later overlay" "$(cat "$OV_CFS/kbus/error")"
ktap_eq covered_still_applied 1 "$(cat "$OV_CFS/kbus/status")"
ktap_check top_removed set_status prop 0
ktap_check covered_removed_after set_status kbus 0
ov_remove kbus prop

# --- path works as in the default dialect ------------------------------------------
mkdir "$OV_CFS/path"
ktap_check path_applies sh -c "echo ovpop/rtc.dtbo >'$OV_CFS/path/path'"
ktap_eq path_status_1 1 "$(cat "$OV_CFS/path/status")"
check_bound path_device amba "$node" rtc-pl031
ov_remove path

# --- back to the default dialect: status is read-only again ----------------------
rmmod ovpop
ktap_check insmod_default insmod "$OVPOP_DIR/ovpop.ko"
mkdir "$OV_CFS/plain"
ktap_eq default_status unapplied "$(cat "$OV_CFS/plain/status")"
ktap_refused default_status_read_only set_status plain 1
ov_remove plain

check_snapshot nothing_left "$snap"
ktap_end
