#!/bin/sh
# Stress: $OV_STRESS (ovpop_stress= on the kernel command line, run.sh)
# apply/remove cycles of the add-on board overlay (a bus with a PL061, GPIO
# LEDs and a fixed regulator: AMBA and platform devices, drivers binding and
# unbinding). Every cycle must apply and remove; afterwards nothing is left
# and MemAvailable and Slab moved by at most 1 MiB (measured after one
# warm-up cycle, once delayed releases ran).
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

cycles=${OV_STRESS:-1000}
snap="$OV_TMP/stress-cycles.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove addon-board
	rm -f "$snap"
}

ktap_begin stress-cycles
ktap_at_exit cleanup

ktap_check warmup ov_apply_dtbo addon-board
ov_remove addon-board
sleep 5	# DEBUG_KOBJECT_RELEASE delays releases by up to 4 s
ov_snapshot >"$snap"
mem0=$(ov_mem)
start=$(date +%s)
i=0
bad=0
while [ "$i" -lt "$cycles" ]; do
	i=$((i + 1))
	if ! ov_apply_dtbo addon-board 2>/dev/null; then
		bad=$((bad + 1))
		ktap_diag "cycle $i: apply failed: $(cat "$OV_CFS/addon-board/error" 2>/dev/null)"
	fi
	ov_remove addon-board || bad=$((bad + 1))
	[ "$bad" -lt 5 ] || break
done
secs=$(($(date +%s) - start))
ktap_eq all_cycles_ran "$cycles" "$i"
ktap_eq no_failed_cycle 0 "$bad"
sleep 5
check_snapshot nothing_left "$snap"
mem1=$(ov_mem)
# shellcheck disable=SC2086 # two numbers each
set -- $mem0 $mem1
avail=$(($1 - $3))
slab=$(($4 - $2))
ktap_diag "cycles: $i in ${secs}s; MemAvailable ${1} -> ${3} KiB (-${avail}), Slab ${2} -> ${4} KiB (+${slab})"
ktap_check memavailable_within_1MiB [ "$avail" -le 1024 ]
ktap_check slab_within_1MiB [ "$slab" -le 1024 ]
ktap_end
