#!/bin/sh
# Unloading leaves the devices the kernel alone would have
# (overlays/virtio-disable.dtso): QEMU's first virtio-mmio node has a device
# the kernel made at boot. An overlay disables the node (the kernel's
# notifier destroys the device) and its removal enables it again (ovpop
# makes the device now). rmmod ovpop must leave that device, as it leaves
# every device of a base-tree node; and a module loaded again takes the
# node as the kernel's.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

node=/virtio_mmio@a000000
dev=a000000.virtio_mmio
snap="$OV_TMP/iface-unload.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove virtio-disable
	[ -d /sys/module/ovpop ] || insmod "$OVPOP_DIR/ovpop.ko"
	rm -f "$snap"
}

ktap_begin iface-unload
ktap_at_exit cleanup
ov_snapshot >"$snap"

# the status property is the base tree's: the kernel keeps its old value
expect_kmsg "OF: overlay: WARNING: memory leak will occur if overlay removed, property: $node/status"
ktap_eq boot_device "$dev" "$(dev_of_node platform "$node")"
ktap_check disable ov_apply_dtbo virtio-disable
check_gone disabled "$node"
ktap_check enable ov_remove virtio-disable
ktap_eq device_back "$dev" "$(dev_of_node platform "$node")"

ktap_check rmmod rmmod ovpop
ktap_eq device_kept_at_rmmod "$dev" "$(dev_of_node platform "$node")"
ktap_check insmod insmod "$OVPOP_DIR/ovpop.ko"
ktap_eq device_kept_at_insmod "$dev" "$(dev_of_node platform "$node")"

# the same round with the module loaded again, and an unload without one
ktap_check disable_again ov_apply_dtbo virtio-disable
check_gone disabled_again "$node"
ktap_check enable_again ov_remove virtio-disable
ktap_eq device_back_again "$dev" "$(dev_of_node platform "$node")"
ktap_check rmmod_again rmmod ovpop
ktap_check insmod_again insmod "$OVPOP_DIR/ovpop.ko"
check_snapshot nothing_left "$snap"
ktap_end
