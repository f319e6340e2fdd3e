#!/bin/sh
# The configfs "target" attribute: an overlay whose target-path is relative
# (overlays/relative.dtso) applies below the node written to "target" (Linux
# 6.6 and later; before, writing "target" fails). Without a target, or with
# a node that does not exist, nothing is applied.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

bus=/ovpop-exbus@c200000
node=$bus/test@3000
snap="$OV_TMP/iface-target.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove target-rel target-none target-bad target-bus
	rm -f "$snap"
}

# Kernel release "MAJOR.MINOR..." -> MAJOR * 1000 + MINOR
kver() {
	IFS=. read -r kv__maj kv__min _ </proc/sys/kernel/osrelease
	echo $((kv__maj * 1000 + ${kv__min%%[!0-9]*}))
}

ktap_begin iface-target
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check apply_bus ov_apply_dtbo target-bus "$OVPOP_DIR/overlays/existing-bus.dtbo"
mkdir "$OV_CFS/target-rel"
if [ "$(kver)" -lt 6006 ]; then
	if echo "$bus" >"$OV_CFS/target-rel/target" 2>/dev/null; then
		ktap_fail target_refused_before_6_6 "write of target succeeded"
	else
		ktap_ok target_refused_before_6_6
	fi
	ktap_eq target_empty "" "$(cat "$OV_CFS/target-rel/target")"
else
	ktap_check write_target sh -c "echo $bus >$OV_CFS/target-rel/target"
	ktap_eq target_reads_back "$bus" "$(cat "$OV_CFS/target-rel/target")"
	cat "$OVPOP_DIR/overlays/relative.dtbo" >"$OV_CFS/target-rel/dtbo"
	ktap_eq apply_relative applied "$(ov_status target-rel)"
	check_bound device_below_target platform "$node" ovpop-test-platform
	if echo / >"$OV_CFS/target-rel/target" 2>/dev/null; then
		ktap_fail target_fixed_while_applied "target changed while applied"
	else
		ktap_ok target_fixed_while_applied
	fi
	ktap_check remove_relative ov_remove target-rel
	check_gone device_removed "$node"
fi

mkdir "$OV_CFS/target-bad"
if echo /ovpop-no-such-node >"$OV_CFS/target-bad/target" 2>/dev/null; then
	ktap_fail missing_target_refused "write of a missing node succeeded"
else
	ktap_ok missing_target_refused
fi

mkdir "$OV_CFS/target-none"
ov__expect_symbols "$OVPOP_DIR/overlays/relative.dtbo"
cat "$OVPOP_DIR/overlays/relative.dtbo" >"$OV_CFS/target-none/dtbo" 2>/dev/null
ktap_eq no_target_unapplied unapplied "$(ov_status target-none)"
check_gone no_target_no_device "$node"

ktap_check remove_all ov_remove target-rel target-none target-bad target-bus
check_snapshot nothing_left "$snap"
ktap_end
