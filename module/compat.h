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

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "ovpop: needs Linux 6.1 or later"
#endif

/*
 * FWNODE_FLAG_NOT_DEVICE: fw_devlink marks overlay nodes that have no device
 * yet as "never a device" when a parent's driver binds first; a device made
 * for such a node afterwards must clear it before device_add() or its
 * consumers' links are lost. The flag is a mask used with plain bit
 * operations on fwnode->flags, except in the stable releases that made it a
 * bit number behind fwnode_{set,clear,test}_flag() (6.12.118 is one).
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
 * of_overlay_fdt_apply(): 6.6 added the target_base argument (commit "of:
 * overlay: Extend of_overlay_fdt_apply() to specify the target node"), the
 * node that fragments' target-path properties are relative to. Before, an
 * apply with a base is refused.
 */
#define OVPOP_HAVE_TARGET_BASE \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0))

static inline int ovpop_compat_overlay_apply(const void *fdt, u32 size,
					     int *ovcs_id,
					     struct device_node *base)
{
#if OVPOP_HAVE_TARGET_BASE
	return of_overlay_fdt_apply(fdt, size, ovcs_id, base);
#else
	if (base)
		return -EOPNOTSUPP;
	return of_overlay_fdt_apply(fdt, size, ovcs_id);
#endif
}

/*
 * AMBA devices and their node: since 6.7 (commit "amba: bus: balance
 * firmware node reference counting") amba_device_add() takes the node
 * reference and amba_device_release() drops it; before, the creator took it
 * and the release dropped it. Set the node just before amba_device_add(),
 * and clear it again if the device never gets there.
 */
static inline void ovpop_compat_amba_set_node(struct device *dev,
					      struct device_node *np)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	device_set_node(dev, of_fwnode_handle(np));
#else
	device_set_node(dev, of_fwnode_handle(of_node_get(np)));
#endif
}

static inline void ovpop_compat_amba_clear_node(struct device *dev)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
	of_node_put(dev->of_node);
#endif
	device_set_node(dev, NULL);
}

/*
 * of_device_make_bus_id(): exported since 6.8 (commit "of: device: Export
 * of_device_make_bus_id()", merged with the nvmem changes for 6.8), static
 * in drivers/of/platform.c before; there a copy of it names AMBA devices
 * the way the kernel does.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define ovpop_compat_make_bus_id of_device_make_bus_id
#else
#include <linux/of_address.h>

static inline void ovpop_compat_make_bus_id(struct device *dev)
{
	struct device_node *node = dev->of_node;
	const __be32 *reg;
	u64 addr;
	u32 mask;

	/* Use parent nodes if necessary to make the name unique */
	while (node->parent) {
		/* A translatable address is unique enough: it goes first */
		reg = of_get_property(node, "reg", NULL);
		addr = reg ? of_translate_address(node, reg) : OF_BAD_ADDR;
		if (addr != OF_BAD_ADDR) {
			if (!of_property_read_u32(node, "mask", &mask))
				dev_set_name(dev, dev_name(dev) ?
					     "%llx.%x.%pOFn:%s" : "%llx.%x.%pOFn",
					     addr, ffs(mask) - 1, node,
					     dev_name(dev));
			else
				dev_set_name(dev, dev_name(dev) ?
					     "%llx.%pOFn:%s" : "%llx.%pOFn",
					     addr, node, dev_name(dev));
			return;
		}
		/* format arguments only used if dev_name() resolves to NULL */
		dev_set_name(dev, dev_name(dev) ? "%s:%s" : "%s",
			     kbasename(node->full_name), dev_name(dev));
		node = node->parent;
	}
}
#endif

/*
 * configfs: ct_item_ops and ct_group_ops point to const operations since
 * 6.19; before that the operations cannot be const.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 19, 0)
#define OVPOP_CFS_CONST const
#else
#define OVPOP_CFS_CONST
#endif

/*
 * of_resolve_phandles() is exported (EXPORT_SYMBOL_GPL) in every supported
 * release, 6.1 to 7.3, but declared only in drivers/of/of_private.h.
 */
int of_resolve_phandles(struct device_node *tree);

#endif /* _OVPOP_COMPAT_H */
