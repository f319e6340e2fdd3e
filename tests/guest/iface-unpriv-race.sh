#!/bin/sh
# World-readable attributes read by an unprivileged user (uid 65534,
# ovpop-tool readloop/blobcheck) while root changes what they show:
# - every world-readable attribute (status, path, target, error, devices,
#   dtbo) of an item whose overlay root applies and removes over and over
#   (overlays/nested-buses.dtso) and of an item applied throughout
#   (addon-board.dtso), and the module's parameters: first with one root
#   writer, then with a second one applying and removing another overlay
#   (rtc.dtso) at the same time, then while root unloads and loads the
#   module between cycles of an item (rmmod may be refused while the
#   reader holds a file open: configfs pins the module then). No read may
#   fail but with ENOENT or ENODEV (the item or module is gone), and each
#   file is read whole at least once; a
#   use-after-free shows as a KASAN report in the debug lane, and a lock
#   order problem as a lockdep report, which the host's log scan fails.
# - dtbo, in the dtbocfg dialect (a write only stores the blob): read while
#   root stores a large and a small blob in turn (nested-buses.dtbo,
#   rtc.dtbo). Every read gives exactly one of them or fails with EAGAIN:
#   configfs copies the size of its first call whatever its second returns,
#   so a blob that shrank in between must not hand out the rest of the
#   buffer (uninitialised kernel memory).
# - status held open by root across the item's rmdir: rmmod is refused, the
#   read fails with ENOENT, and after the close rmmod goes.
# Each race lasts 12 s in the debug lane (the rmmod one 6 s), 5 s otherwise.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

tool=$OVPOP_DIR/bin/ovpop-tool
ov=$OVPOP_DIR/overlays
nobody=65534
secs=5
[ "${OV_LANE:-}" = debug ] && secs=12
snap="$OV_TMP/iface-unpriv-race.snap"
out="$OV_TMP/iface-unpriv-race.out"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_loaded ovpop || insmod "$OVPOP_DIR/ovpop.ko"
	ov_remove race-nb race-rtc race-board race-blob
	if [ "$(cat /sys/module/ovpop/parameters/dialect 2>/dev/null)" != ovpop ]; then
		rmmod ovpop 2>/dev/null
		insmod "$OVPOP_DIR/ovpop.ko"
	fi
	rm -f "$snap" "$out" "$out.2"
}

# churn SECONDS ITEM OVERLAY [rmmod]: apply and remove OVERLAY as ITEM until
# the time is up, with rmmod and insmod of ovpop after each removal if
# asked (an rmmod refused as busy is tried again); prints "cycles failures
# refused-rmmods"
churn() {
	# the time since boot (ov.sh): the rtc overlay sets the wall clock
	ov__now
	c_end=$((ov__up + $1 * 100))
	c_n=0 c_fail=0 c_busy=0
	while ov__now && [ "$ov__up" -lt "$c_end" ]; do
		mkdir "$OV_CFS/$2" || { c_fail=$((c_fail + 1)); break; }
		cat "$ov/$3.dtbo" >"$OV_CFS/$2/dtbo"
		[ "$(ov_status "$2")" = applied ] || c_fail=$((c_fail + 1))
		rmdir "$OV_CFS/$2" || { c_fail=$((c_fail + 1)); break; }
		c_n=$((c_n + 1))
		[ -n "${4:-}" ] || continue
		c_try=0
		until rmmod ovpop 2>/dev/null; do
			c_busy=$((c_busy + 1))
			c_try=$((c_try + 1))
			[ "$c_try" -lt 100 ] || { c_fail=$((c_fail + 1)); break 2; }
		done
		insmod "$OVPOP_DIR/ovpop.ko" || { c_fail=$((c_fail + 1)); break; }
	done
	echo "$c_n $c_fail $c_busy"
}

# attrs ITEM...: the world-readable files of each ITEM
attrs() {
	for a_item; do
		for a in status path target error devices dtbo; do
			printf '%s\n' "$OV_CFS/$a_item/$a"
		done
	done
}

# race NAME SECONDS ITEM OVERLAY [ITEM2 OVERLAY2 | rmmod]: the reader reads
# every attribute of ITEM, ITEM2, race-board (unless rmmod) and the
# module's parameters as uid $nobody while root churns ITEM (and ITEM2 at
# once); each file must be read whole at least once; cases NAME_*
race() {
	r_name=$1 r_secs=$2 r_item=$3 r_ov=$4
	shift 4
	r_item2='' r_ov2='' r_rmmod='' r_board=race-board
	case ${1:-} in
	rmmod) r_rmmod=rmmod r_board='' ;;
	?*) r_item2=$1 r_ov2=$2 ;;
	esac
	# shellcheck disable=SC2046 # file names without blanks
	"$tool" readloop "$nobody" "$r_secs" \
		$(attrs "$r_item" ${r_item2:+"$r_item2"} ${r_board:+"$r_board"}) \
		/sys/module/ovpop/parameters/* >"$out" 2>&1 &
	r_reader=$!
	if [ -n "$r_item2" ]; then
		churn "$r_secs" "$r_item2" "$r_ov2" >"$out.2" &
		r_writer=$!
	fi
	r_res=$(churn "$r_secs" "$r_item" "$r_ov" ${r_rmmod:+"$r_rmmod"})
	wait "$r_reader"
	r_rc=$?
	r_res2="0 0 0"
	if [ -n "$r_item2" ]; then
		wait "$r_writer"
		r_res2=$(cat "$out.2")
	fi
	# shellcheck disable=SC2086 # "cycles failures refused-rmmods", twice
	set -- $r_res $r_res2
	ktap_diag "$r_name: $(tr '\n' ';' <"$out") root: $1 cycles ($3 rmmod refused as busy)${r_item2:+, second writer: $4 cycles}"
	ktap_eq "${r_name}_reads_ok" 0 "$r_rc"
	ktap_match "${r_name}_every_file_read" '^readloop: .*, 0 of [1-9][0-9]* files never read$' \
		"$(tail -n 1 "$out")"
	ktap_eq "${r_name}_churn_no_failure" 0 "$(($2 + $5))"
	ktap_match "${r_name}_churn_cycles" '^[1-9]' "$1"
	[ -z "$r_item2" ] || ktap_match "${r_name}_second_writer_cycles" '^[1-9]' "$4"
}

ktap_begin iface-unpriv-race
ktap_at_exit cleanup
ov_snapshot >"$snap"

# --- attributes while root applies and removes ----------------------------------
ktap_check board_apply ov_apply_dtbo race-board "$ov/addon-board.dtbo"
before=$(ov_devices race-board)
race attrs "$secs" race-nb nested-buses
race two_writers "$secs" race-nb nested-buses race-rtc rtc
ktap_eq board_report_kept "$before" "$(ov_devices race-board)"
check_devices_sysfs board_report_true race-board
ktap_check board_remove ov_remove race-board
check_snapshot devices_state_restored "$snap"

# --- and while root unloads and loads the module ----------------------------------
rsecs=$secs
[ "$rsecs" -le 5 ] || rsecs=$((secs / 2))
race rmmod "$rsecs" race-rtc rtc rmmod
ktap_check module_loaded ov_loaded ovpop
check_snapshot rmmod_state_restored "$snap"

# --- an attribute held open across rmdir and rmmod -------------------------------
# configfs pins the module while the file is open and gives ENOENT to a
# read once the item is gone (fs/configfs/file.c: frag_dead)
base=$(cat /sys/module/ovpop/refcnt)
ktap_check held_apply ov_apply_dtbo race-rtc "$ov/rtc.dtbo"
if [ -r "$OV_CFS/race-rtc/status" ]; then
	pins=$(cat /sys/module/ovpop/refcnt)
	exec 3<"$OV_CFS/race-rtc/status"
	ktap_eq held_pins_module $((pins + 1)) "$(cat /sys/module/ovpop/refcnt)"
	ktap_check held_rmdir rmdir "$OV_CFS/race-rtc"
	ktap_check held_rmmod_refused sh -c '! rmmod ovpop'
	ktap_match held_read_gone 'No such file' "$(cat <&3 2>&1)"
	exec 3<&-
	ktap_eq held_unpinned "$base" "$(cat /sys/module/ovpop/refcnt)"
	ktap_check held_rmmod_after_close rmmod ovpop
	ktap_check held_insmod insmod "$OVPOP_DIR/ovpop.ko"
else
	ktap_fail held_status_open "no $OV_CFS/race-rtc/status after the apply"
	ov_remove race-rtc
fi
check_snapshot held_state_restored "$snap"

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
