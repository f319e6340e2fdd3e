#!/bin/sh
# Next to another configfs overlay loader (the Raspberry Pi and Xilinx
# kernels build one in: CONFIG_OF_CONFIGFS takes device-tree/overlays),
# ovpop loads without its own loader and still creates the right devices
# for the overlays applied another way: here ovpop_otherloader.ko takes
# the configfs name and ovpop_bench.ko's debugfs apply stands in for that
# loader's apply. The PL031 of overlays/rtc.dtso must be an AMBA device
# bound to rtc-pl031 (the kernel alone makes a platform device). Then both
# go and ovpop's own loader is back.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

bench=/sys/kernel/debug/ovpop_bench
node=/rtc@9010000
snap="$OV_TMP/iface-otherloader.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	[ -e "$bench/remove" ] && echo 1 >"$bench/remove" 2>/dev/null
	rmmod ovpop_bench 2>/dev/null
	if [ -d /sys/module/ovpop_otherloader ]; then
		rmmod ovpop 2>/dev/null
		rmmod ovpop_otherloader
	fi
	[ -d /sys/module/ovpop ] || insmod "$OVPOP_DIR/ovpop.ko"
	rm -f "$snap"
}

ktap_begin iface-otherloader
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check rmmod_ovpop rmmod ovpop
ktap_check other_loader insmod "$OVPOP_DIR/modules/ovpop_otherloader.ko"
ktap_check insmod_next_to_it insmod "$OVPOP_DIR/ovpop.ko"
ktap_check says_so sh -c "dmesg | grep -q \"configfs device-tree is another loader's\""
if mkdir "$OV_CFS/ours" 2>/dev/null; then
	ktap_fail not_our_loader "mkdir in the other loader's overlays succeeded"
	rmdir "$OV_CFS/ours"
else
	ktap_ok not_our_loader
fi

ktap_check bench_module insmod "$OVPOP_DIR/modules/ovpop_bench.ko"
ktap_check other_apply sh -c "echo ovpop/rtc.dtbo >$bench/apply"
check_bound amba_device_by_ovpop amba "$node" rtc-pl031
if dev_of_node platform "$node" >/dev/null; then
	ktap_fail no_platform_device "platform device $(dev_of_node platform "$node")"
else
	ktap_ok no_platform_device
fi
ktap_check other_remove sh -c "echo 1 >$bench/remove"
check_gone device_removed "$node"
rmmod ovpop_bench

ktap_check rmmod_next_to_it rmmod ovpop
ktap_check other_loader_gone rmmod ovpop_otherloader
ktap_check insmod_alone insmod "$OVPOP_DIR/ovpop.ko"
ktap_check own_loader_back mkdir "$OV_CFS/ours"
ov_remove ours

check_snapshot nothing_left "$snap"
ktap_end
