#!/bin/sh
# World-readable attributes read by an unprivileged user (uid 65534,
# ovpop-tool readloop/blobcheck) while root changes what they show:
# - devices: of an item whose overlay root applies and removes over and over
#   (overlays/nested-buses.dtso), and of an item applied throughout
#   (addon-board.dtso), during the churn. No read may fail but with ENOENT
#   (the item is gone); a use-after-free shows as a KASAN report in the
#   debug lane, which the host's log scan fails.
# - dtbo, in the dtbocfg dialect (a write only stores the blob): read while
#   root stores a large and a small blob in turn (nested-buses.dtbo,
#   rtc.dtbo). Every read gives exactly one of them or fails with EAGAIN:
#   configfs copies the size of its first call whatever its second returns,
#   so a blob that shrank in between must not hand out the rest of the
#   buffer (uninitialised kernel memory).
# Each race lasts 20 s in the debug lane, 5 s otherwise.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"

tool=$OVPOP_DIR/bin/ovpop-tool
ov=$OVPOP_DIR/overlays
nobody=65534
secs=5
[ "${OV_LANE:-}" = debug ] && secs=20
snap="$OV_TMP/iface-unpriv-race.snap"
out="$OV_TMP/iface-unpriv-race.out"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove race-nb race-board race-blob
	if [ "$(cat /sys/module/ovpop/parameters/dialect 2>/dev/null)" != ovpop ]; then
		rmmod ovpop 2>/dev/null
		insmod "$OVPOP_DIR/ovpop.ko"
	fi
	rm -f "$snap" "$out"
}

# churn SECONDS: apply and remove nested-buses as item race-nb until the
# time is up; prints "cycles failures"
churn() {
	c_end=$(($(date +%s) + $1))
	c_n=0 c_fail=0
	while [ "$(date +%s)" -lt "$c_end" ]; do
		mkdir "$OV_CFS/race-nb" || { c_fail=$((c_fail + 1)); break; }
		cat "$ov/nested-buses.dtbo" >"$OV_CFS/race-nb/dtbo"
		[ "$(ov_status race-nb)" = applied ] || c_fail=$((c_fail + 1))
		rmdir "$OV_CFS/race-nb" || { c_fail=$((c_fail + 1)); break; }
		c_n=$((c_n + 1))
	done
	echo "$c_n $c_fail"
}

ktap_begin iface-unpriv-race
ktap_at_exit cleanup
ov_snapshot >"$snap"

# --- devices while root applies and removes -------------------------------------
ktap_check board_apply ov_apply_dtbo race-board "$ov/addon-board.dtbo"
before=$(ov_devices race-board)
"$tool" readloop "$nobody" "$secs" "$OV_CFS/race-nb/devices" \
	"$OV_CFS/race-board/devices" >"$out" 2>&1 &
reader=$!
res=$(churn "$secs")
wait "$reader"
rc=$?
cycles=${res% *}
ktap_diag "$(tr '\n' ';' <"$out") root: $cycles apply/remove cycles"
ktap_eq devices_reads_ok 0 "$rc"
ktap_match devices_reads_done '^readloop: [1-9][0-9]* reads' "$(tail -n 1 "$out")"
ktap_eq churn_no_failure 0 "${res#* }"
ktap_match churn_cycles '^[1-9]' "$cycles"
ktap_eq board_report_kept "$before" "$(ov_devices race-board)"
check_devices_sysfs board_report_true race-board
ktap_check board_remove ov_remove race-board
check_snapshot devices_state_restored "$snap"

# --- dtbo while root stores blobs of two sizes (dtbocfg) --------------------------
rmmod ovpop
ktap_check insmod_dtbocfg insmod "$OVPOP_DIR/ovpop.ko" dialect=dtbocfg
mkdir "$OV_CFS/race-blob"
ktap_check blob_stored sh -c "cat '$ov/nested-buses.dtbo' >'$OV_CFS/race-blob/dtbo'"
ktap_diag "blobs: $(wc -c <"$ov/nested-buses.dtbo") and $(wc -c <"$ov/rtc.dtbo") bytes"
"$tool" blobwrite "$secs" "$OV_CFS/race-blob/dtbo" "$ov/nested-buses.dtbo" \
	"$ov/rtc.dtbo" >"$out.w" 2>&1 &
writer=$!
"$tool" blobcheck "$nobody" "$secs" "$OV_CFS/race-blob/dtbo" \
	"$ov/nested-buses.dtbo" "$ov/rtc.dtbo" >"$out" 2>&1
rc=$?
wait "$writer"
wrc=$?
ktap_diag "$(cat "$out" "$out.w" | tr '\n' ';')"
rm -f "$out.w"
ktap_eq dtbo_reads_whole_blobs 0 "$rc"
ktap_eq dtbo_writes_ok 0 "$wrc"
ktap_match dtbo_reads_both '^blobcheck: [0-9]+ reads, [1-9][0-9]* A, [1-9][0-9]* B' \
	"$(tail -n 1 "$out")"
ktap_eq dtbo_status_0 0 "$(cat "$OV_CFS/race-blob/status")"
ov_remove race-blob
rmmod ovpop
ktap_check insmod_default insmod "$OVPOP_DIR/ovpop.ko"
check_snapshot dtbo_state_restored "$snap"
ktap_end
