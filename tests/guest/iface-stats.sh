#!/bin/sh
# Interface: ovpop/stats in debugfs (module/stats.c, main.c), and children
# that an overlay adds under a bus the kernel populated at boot
# (overlays/kernel-bus-children.dtso): both get their devices below the
# kernel's bus device; the statistics count them and their tracking memory,
# and are back where they were after the removal. The suite's build is not
# the benchmark's (OVPOP_TIMING): it shows counts and no times. Applied
# twice: the bus device ovpop remembers from the first apply must not be
# stale. That
# overlay (one fragment, no labels, no #*-cells) cannot conflict: the
# loader's precheck is skipped for it, and runs for the add-on board
# (labels).
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

stats=/sys/kernel/debug/ovpop/stats
bus=/platform-bus@c000000
snap="$OV_TMP/iface-stats.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove kernel-bus-children
	ov_remove addon-board
	rm -f "$snap"
}

# stat KEY: one value of ovpop/stats, or -1
stat() {
	awk -v k="$1" '$1 == k { v = $2; found = 1 } END { print found ? v : -1 }' "$stats"
}

ktap_begin iface-stats
ktap_at_exit cleanup
ov_snapshot >"$snap"
ktap_check stats_readable [ -r "$stats" ]
ktap_eq no_times_untimed -1 "$(stat apply_ns)"
busdev=$(dev_of_node platform "$bus")
busdir=$(dev_path platform "$busdev")
devices0=$(stat devices)
track0=$(stat tracking_bytes)
events0=$(stat add_count)
for round in 1 2; do
	pre0=$(stat precheck_count)
	ktap_check "apply_$round" ov_apply_dtbo kernel-bus-children
	ktap_match "no_precheck_needed_$round" "^$pre0\$" "$(stat precheck_count)"
	for c in test@300000 test@301000; do
		if check_bound "${c%@*}_${c#*@}_bound_$round" platform "$bus/$c" ovpop-test-platform; then
			check_under "${c%@*}_${c#*@}_below_kernel_bus_$round" \
				"$(dev_path platform "$OV_DEV")" "$busdir"
		else
			ktap_fail "${c%@*}_${c#*@}_below_kernel_bus_$round" "no device"
		fi
	done
	ktap_match "devices_counted_$round" "^$((devices0 + 2))\$" "$(stat devices)"
	ktap_check "add_events_counted_$round" [ "$(stat add_count)" -ge $((events0 + 2)) ]
	ktap_check "tracking_grows_$round" [ "$(stat tracking_bytes)" -gt "$track0" ]
	ktap_check "remove_$round" ov_remove kernel-bus-children
	check_gone "test_300000_removed_$round" "$bus/test@300000"
	check_gone "test_301000_removed_$round" "$bus/test@301000"
	ktap_match "devices_back_$round" "^$devices0\$" "$(stat devices)"
	ktap_match "tracking_back_$round" "^$track0\$" "$(stat tracking_bytes)"
	events0=$(stat add_count)
done
pre0=$(stat precheck_count)
ktap_check apply_labelled ov_apply_dtbo addon-board
ktap_match precheck_for_labels "^$((pre0 + 1))\$" "$(stat precheck_count)"
ktap_check remove_labelled ov_remove addon-board
check_snapshot nothing_left "$snap"
ktap_end
