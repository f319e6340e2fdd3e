#!/bin/sh
# An overlay whose directory is removed while the kernel refuses its
# removal (module/apply.c, "parked"): only possible when an overlay applied
# outside configfs covers it (here ovpop_bench.ko's debugfs apply of
# overlays/platform-bus-prop.dtso above overlays/kernel-bus-children.dtso).
# The rmdir succeeds, the overlay and its devices stay; a later configfs
# overlay covering it must not try to pin the removed directory (this
# crashed before); once nothing covers it, the next removal through
# configfs takes it away.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

bench=/sys/kernel/debug/ovpop_bench
child=/platform-bus@c000000/test@300000
snap="$OV_TMP/iface-parked.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove above rtc
	[ -e "$bench/remove" ] && echo 1 >"$bench/remove" 2>/dev/null
	rmmod ovpop_bench 2>/dev/null
	rm -f "$snap"
}

ktap_begin iface-parked
ktap_at_exit cleanup
ov_snapshot >"$snap"

expect_kmsg 'OF: overlay: WARNING: memory leak will occur if overlay removed, property: /platform-bus@c000000/ovpop,note'
expect_kmsg 'OF: overlay: overlay #[0-9]+ is not topmost'
ktap_check below_apply ov_apply_dtbo kernel-bus-children
check_bound below_device platform "$child" ovpop-test-platform
ktap_check bench_module insmod "$OVPOP_DIR/modules/ovpop_bench.ko"
ktap_check outside_apply sh -c "echo ovpop/platform-bus-prop.dtbo >$bench/apply"

ktap_check rmdir_succeeds rmdir "$OV_CFS/kernel-bus-children"
check_bound parked_device_stays platform "$child" ovpop-test-platform
ktap_check parked_logged sh -c "dmesg | grep -q 'kernel-bus-children: cannot remove; it stays applied'"

# a configfs overlay covering the parked one: it must not be pinned
ktap_check covering_apply ov_apply_dtbo above "$OVPOP_DIR/overlays/platform-bus-prop.dtbo"
ktap_check covering_remove ov_remove above
check_bound still_parked platform "$child" ovpop-test-platform
ktap_check outside_remove sh -c "echo 1 >$bench/remove"
rmmod ovpop_bench

# the next removal through configfs retries the parked overlay
ktap_check other_apply ov_apply_dtbo rtc
ktap_check other_remove ov_remove rtc
check_gone parked_removed "$child"
ktap_check removal_logged sh -c "dmesg | grep -q 'kernel-bus-children: removed (deferred)'"

check_snapshot nothing_left "$snap"
ktap_end
