/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels ovpop supports lives here. Each shim
 * names the version that needs it and why; the rest of the module calls the
 * ovpop_compat_* names only.
 */
#ifndef _OVPOP_COMPAT_H
#define _OVPOP_COMPAT_H

#include <linux/device.h>
#include <linux/fwnode.h>
#include <linux/of.h>
#include <linux/of_device.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
#error "ovpop: kernels before 6.7 are not supported yet (of_device_make_bus_id is static there)"
#endif

/*
 * FWNODE_FLAG_NOT_DEVICE: fw_devlink marks overlay nodes that have no device
 * yet as "never a device" when a parent's driver binds first; a device made
 * for such a node afterwards must clear it before device_add() or its
 * consumers' links are lost. The flag was a mask used with plain bit
 * operations on fwnode->flags until late stable releases turned it into a
 * bit number behind fwnode_{set,clear,test}_flag() (seen in 6.12.118).
 */
static inline void ovpop_compat_clear_not_device(struct device_node *np)
{
	struct fwnode_handle *fwnode = of_fwnode_handle(np);

#if FWNODE_FLAG_NOT_DEVICE == 1
	fwnode_clear_flag(fwnode, FWNODE_FLAG_NOT_DEVICE);
#else
	fwnode->flags &= ~FWNODE_FLAG_NOT_DEVICE;
#endif
}

/*
 * of_overlay_fdt_apply(): 6.6 added the target_base argument (the node an
 * overlay's fragments are relative to).
 */
static inline int ovpop_compat_overlay_apply(const void *fdt, u32 size,
					     int *ovcs_id)
{
	return of_overlay_fdt_apply(fdt, size, ovcs_id, NULL);
}

/*
 * AMBA devices: since 6.7 amba_device_add() takes the node reference itself
 * and amba_device_release() drops it, so the node is set without a get.
 */
static inline void ovpop_compat_amba_set_node(struct device *dev,
					      struct device_node *np)
{
	device_set_node(dev, of_fwnode_handle(np));
}

/*
 * configfs: ct_item_ops and ct_group_ops point to const operations since
 * 6.19; before that the operations cannot be const.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 19, 0)
#define OVPOP_CFS_CONST const
#else
#define OVPOP_CFS_CONST
#endif

#endif /* _OVPOP_COMPAT_H */
