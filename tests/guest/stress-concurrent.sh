#!/bin/sh
# Stress (debug lane): 4 writers apply and remove 4 distinct overlays
# through their own configfs items for 60 s (20 in the debug lane); the
# kernel removes only the topmost of overlapping overlays, so a writer whose
# rmdir is refused with EBUSY (the loader's pin, iface-stack.sh) retries it.
# Then 2 writers race on one item for 30 s (10) (mkdir, write, rmdir,
# either may lose). No kernel
# report (the host scans the log), and nothing left behind.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

wsecs=60 rsecs=30
[ "${OV_LANE:-}" = debug ] && wsecs=20 rsecs=10
snap="$OV_TMP/stress-concurrent.snap"
dir="$OV_TMP/stress-concurrent"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove_all
	rm -rf "$snap" "$dir"
}

# writer N OVERLAY SECONDS: apply/remove until the time is up; writes
# "ops busy failures" to $dir/N
writer() {
	w_end=$(($(date +%s) + $3))
	w_ops=0 w_busy=0 w_fail=0
	while [ "$(date +%s)" -lt "$w_end" ]; do
		mkdir "$OV_CFS/w$1" || { w_fail=$((w_fail + 1)); break; }
		cat "$OVPOP_DIR/overlays/$2.dtbo" >"$OV_CFS/w$1/dtbo"
		[ "$(cat "$OV_CFS/w$1/status")" = applied ] || w_fail=$((w_fail + 1))
		w_try=0
		until rmdir "$OV_CFS/w$1" 2>/dev/null; do
			w_busy=$((w_busy + 1))
			w_try=$((w_try + 1))
			[ "$w_try" -lt 600 ] || { w_fail=$((w_fail + 1)); break 2; }
			sleep 0.1
		done
		w_ops=$((w_ops + 1))
	done
	echo "$w_ops $w_busy $w_fail" >"$dir/$1"
}

# racer N SECONDS: mkdir/write/rmdir of the shared item "race"
racer() {
	r_end=$(($(date +%s) + $2))
	r_ops=0
	while [ "$(date +%s)" -lt "$r_end" ]; do
		mkdir "$OV_CFS/race" 2>/dev/null
		# the other racer may have removed it: the shell's own message
		{ cat "$OVPOP_DIR/overlays/periphid.dtbo" >"$OV_CFS/race/dtbo"; } 2>/dev/null
		rmdir "$OV_CFS/race" 2>/dev/null
		r_ops=$((r_ops + 1))
	done
	echo "$r_ops" >"$dir/race$1"
}

ktap_begin stress-concurrent
ktap_at_exit cleanup
mkdir -p "$dir"
ov_snapshot >"$snap"

# existing-bus has a label: /__symbols__ (see ov.sh's ov_apply_dtbo)
expect_kmsg 'OF: overlay: WARNING: memory leak will occur if overlay removed, property: /__symbols__/'
n=0
for ov in existing-bus periphid fuzz-seed defer; do
	n=$((n + 1))
	writer "$n" "$ov" "$wsecs" &
done
wait
ops=0 busy=0 fail=0
for w in 1 2 3 4; do
	read -r o b f <"$dir/$w" || { o=0 b=0 f=1; }
	ops=$((ops + o)) busy=$((busy + b)) fail=$((fail + f))
done
ktap_diag "concurrent: 4 writers, $ops apply/remove operations in $wsecs s, $busy refused removals retried"
ktap_eq writers_no_failure 0 "$fail"
ktap_check writers_did_work [ "$ops" -ge 8 ]
ktap_eq writers_left_no_item "" "$(ls "$OV_CFS")"

racer 1 "$rsecs" &
racer 2 "$rsecs" &
wait
ov_remove race
r1=$(cat "$dir/race1") r2=$(cat "$dir/race2")
ktap_diag "racing on one item: $r1 + $r2 rounds in $rsecs s"
ktap_check racers_did_work [ $((r1 + r2)) -ge 4 ]
sleep 5	# delayed kobject releases
check_snapshot nothing_left "$snap"
ktap_end
