// SPDX-License-Identifier: GPL-2.0
/*
 * The device of one node: creating it (a platform device, or an AMBA device
 * for an "arm,primecell" node), destroying it, and finding the one the
 * kernel created.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/amba/bus.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/ioport.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/of_device.h>
#include <linux/of_irq.h>
#include <linux/of_platform.h>
#include <linux/platform_device.h>
#include <linux/string.h>

#include "compat.h"
#include "internal.h"

/*
 * Names a device as of_device_make_bus_id() does. @res is @np's first
 * address as of_address_to_resource() gave it, or NULL.
 *
 * The kernel names a device by the translation of its node's first "reg"
 * address. In memory space, outside a PCI bus (whose devices' resources
 * come from "assigned-addresses"), that is @res->start: no need to
 * translate it again. Other devices get the kernel's name the kernel's way.
 */
static void ovpop_device_set_name(struct device *dev, struct device_node *np,
				  const struct resource *res)
{
	struct device_node *parent = np->parent;
	u32 mask;

	if (!res || !(res->flags & IORESOURCE_MEM) || !parent ||
	    of_property_present(parent, "device_type") ||
	    of_node_name_eq(parent, "pcie")) {
		ovpop_compat_make_bus_id(dev);
		return;
	}
	if (!of_property_read_u32(np, "mask", &mask))
		dev_set_name(dev, "%llx.%x.%pOFn", (u64)res->start,
			     ffs(mask) - 1, np);
	else
		dev_set_name(dev, "%llx.%pOFn", (u64)res->start, np);
}

/*
 * Drops a device's node reference now, not at the device's release: @dev is
 * a platform device from ovpop_platform_alloc() or an AMBA device that went
 * through amba_device_add(). The device may outlive its last put (an open
 * sysfs file holds it; CONFIG_DEBUG_KOBJECT_RELEASE delays every release),
 * but the OF core frees an overlay's changeset right after the notification
 * that removed (or failed to create) the device, and its nodes must hold no
 * other references then: the core would report a leak, and later print a
 * node whose parent is freed.
 */
static void ovpop_device_drop_node(struct device *dev)
{
	struct device_node *np = dev->of_node;

	device_set_node(dev, NULL);	/* the releases put dev->of_node/fwnode */
	of_node_put(np);
}

/* A node's addresses are translated on the stack; more: of_device_alloc() */
#define OVPOP_MAX_REG	4

/*
 * As of_device_alloc(), translating each address once: the kernel's
 * translates every address twice (to count them, then to fill the table)
 * and the first a third time to name the device. Nodes with OVPOP_MAX_REG
 * addresses or more are left to it.
 */
static struct platform_device *ovpop_platform_alloc(struct device_node *np,
						    const char *bus_id,
						    struct device *parent)
{
	struct resource res[OVPOP_MAX_REG];
	struct platform_device *pdev;
	unsigned int n = 0;

	while (n < OVPOP_MAX_REG && !of_address_to_resource(np, n, &res[n]))
		n++;
	if (n == OVPOP_MAX_REG)
		return of_device_alloc(np, bus_id, parent);

	pdev = platform_device_alloc("", PLATFORM_DEVID_NONE);
	if (!pdev)
		return NULL;
	if (n) {
		/* platform_device_release() frees it */
		pdev->resource = kmemdup(res, n * sizeof(*res), GFP_KERNEL);
		if (!pdev->resource) {
			platform_device_put(pdev);
			return NULL;
		}
		pdev->num_resources = n;
	}
	device_set_node(&pdev->dev, of_fwnode_handle(of_node_get(np)));
	pdev->dev.parent = parent ?: &platform_bus;
	if (bus_id)
		dev_set_name(&pdev->dev, "%s", bus_id);
	else
		ovpop_device_set_name(&pdev->dev, np, n ? &res[0] : NULL);
	return pdev;
}

/*
 * As of_node_to_nid() (drivers/of/of_numa.c), which is not exported: the
 * "numa-node-id" of the node or of its nearest ancestor that has one, if
 * that NUMA node is possible. Only kernels with CONFIG_OF_NUMA read it.
 */
static int ovpop_node_to_nid(struct device_node *np)
{
	int r = -ENODATA;
	u32 nid;

	if (!IS_ENABLED(CONFIG_OF_NUMA))
		return NUMA_NO_NODE;
	for (np = of_node_get(np); np; np = of_get_next_parent(np)) {
		r = of_property_read_u32(np, "numa-node-id", &nid);
		if (r != -EINVAL)	/* -EINVAL: the node has none */
			break;
	}
	if (np && r)
		pr_warn("Invalid \"numa-node-id\" property in node %pOFn\n", np);
	of_node_put(np);
	if (!r && nid < MAX_NUMNODES && node_possible(nid))
		return nid;
	return NUMA_NO_NODE;
}

/*
 * As of_platform_device_create_pdata(), without of_device_register() (which
 * would initialise the device twice) and without platform_device_add()
 * (which would claim the memory ranges and break drivers that claim them).
 */
static struct device *ovpop_platform_create(struct device_node *np,
					    const char *bus_id, void *pdata,
					    struct device *parent)
{
	struct platform_device *pdev;
	u64 t0;
	int ret;

	pdev = ovpop_platform_alloc(np, bus_id, parent);
	if (!pdev)
		return ERR_PTR(-ENOMEM);

	pdev->dev.coherent_dma_mask = DMA_BIT_MASK(32);
	if (!pdev->dev.dma_mask)
		pdev->dev.dma_mask = &pdev->dev.coherent_dma_mask;
	pdev->dev.bus = &platform_bus_type;
	pdev->dev.platform_data = pdata;
	of_msi_configure(&pdev->dev, np);
	pdev->name = dev_name(&pdev->dev);
	pdev->id = PLATFORM_DEVID_NONE;
	/*
	 * As of_device_add(); device_add() gives a device without a node
	 * its parent's. AMBA devices always get their parent's: the kernel's
	 * of_amba_device_create() sets none (6.1, 6.12).
	 */
	set_dev_node(&pdev->dev, ovpop_node_to_nid(np));

	ovpop_compat_clear_not_device(np);
	t0 = ovpop_time_start();
	ret = device_add(&pdev->dev);
	ovpop_time_end(OVPOP_STAT_REGISTER, t0);
	if (ret) {
		pr_err("%pOF: cannot add platform device: %d\n", np, ret);
		/* the release would kfree() it: it is the caller's */
		pdev->dev.platform_data = NULL;
		ovpop_device_drop_node(&pdev->dev);
		platform_device_put(pdev);
		return ERR_PTR(ret);
	}
	return &pdev->dev;
}

/*
 * As the kernel's of_amba_device_create(), which is static: from the
 * exported amba_device_alloc()/amba_device_add(), one memory resource
 * (reg[0]), IRQs decoded by the AMBA bus at probe, and the
 * "arm,primecell-periphid" property overriding the ID read from hardware.
 * @pdata is never freed by the device. Returns the registered device (the
 * registration holds the only reference), or an ERR_PTR: -EINVAL without a
 * usable reg, -EBUSY when the range overlaps a registered one, -ENOMEM.
 */
static struct device *ovpop_amba_create(struct device_node *np,
					const char *bus_id, void *pdata,
					struct device *parent)
{
	struct amba_device *adev;
	u64 t0;
	int ret;

	adev = amba_device_alloc(NULL, 0, 0);
	if (!adev)
		return ERR_PTR(-ENOMEM);

	/* AMBA devices only support a single DMA mask */
	adev->dev.coherent_dma_mask = DMA_BIT_MASK(32);
	adev->dev.dma_mask = &adev->dev.coherent_dma_mask;
	adev->dev.parent = parent ?: &platform_bus;
	adev->dev.platform_data = pdata;

	/* Allow the HW Peripheral ID to be overridden */
	of_property_read_u32(np, "arm,primecell-periphid", &adev->periphid);

	ret = of_address_to_resource(np, 0, &adev->res);
	if (ret) {
		pr_err("%pOF: no usable reg for an AMBA device (%d)\n", np, ret);
		goto err_put;
	}

	/* Only now: a device that never reaches amba_device_add() has none */
	ovpop_compat_amba_set_node(&adev->dev, np);
	if (bus_id) {
		ret = dev_set_name(&adev->dev, "%s", bus_id);
		if (ret)
			goto err_put_node;
	} else {
		ovpop_device_set_name(&adev->dev, np, &adev->res);
	}

	ovpop_compat_clear_not_device(np);
	t0 = ovpop_time_start();
	ret = amba_device_add(adev, &iomem_resource);
	ovpop_time_end(OVPOP_STAT_REGISTER, t0);
	if (ret) {
		pr_err("%pOF: cannot add AMBA device %pR: %d\n", np, &adev->res,
		       ret);
		ovpop_device_drop_node(&adev->dev);
		goto err_put;
	}
	return &adev->dev;

err_put_node:
	ovpop_compat_amba_clear_node(&adev->dev);
err_put:
	amba_device_put(adev);
	return ERR_PTR(ret);
}

/**
 * ovpop_auxdata() - the auxdata entry of a node, as the kernel's
 *		     of_dev_lookup() finds it
 * @lookup: the auxdata table, or NULL
 * @np: the node
 *
 * An entry matches by compatible and the address of reg[0]; failing that,
 * an entry with the node's compatible and neither address nor name.
 *
 * Return: the entry, or NULL.
 */
const struct of_dev_auxdata *
ovpop_auxdata(const struct of_dev_auxdata *lookup, struct device_node *np)
{
	const struct of_dev_auxdata *aux;
	struct resource res;
	bool compatible = false;

	if (!lookup)
		return NULL;

	for (aux = lookup; aux->compatible; aux++) {
		if (!of_device_is_compatible(np, aux->compatible))
			continue;
		compatible = true;
		if (!of_address_to_resource(np, 0, &res) &&
		    res.start != aux->phys_addr)
			continue;
		return aux;
	}
	if (!compatible)
		return NULL;

	for (aux = lookup; aux->compatible; aux++)
		if (of_device_is_compatible(np, aux->compatible) &&
		    !aux->phys_addr && !aux->name)
			return aux;
	return NULL;
}

/**
 * ovpop_device_create() - create and register the device for a node
 * @np: the node; the device takes its own reference
 * @aux: matching auxdata entry (name, platform_data), or NULL
 * @parent: parent device, or NULL for the platform bus
 *
 * "arm,primecell" nodes become AMBA devices (on kernels with
 * CONFIG_ARM_AMBA), all others platform devices.
 * The caller has set OF_POPULATED on @np.
 *
 * Return: the device, holding the registration's reference that
 * ovpop_device_destroy() drops, or an ERR_PTR.
 */
struct device *ovpop_device_create(struct device_node *np,
				   const struct of_dev_auxdata *aux,
				   struct device *parent)
{
	const char *bus_id = aux ? aux->name : NULL;
	void *pdata = aux ? aux->platform_data : NULL;

	if (IS_ENABLED(CONFIG_ARM_AMBA) &&
	    of_device_is_compatible(np, "arm,primecell"))
		return ovpop_amba_create(np, bus_id, pdata, parent);
	return ovpop_platform_create(np, bus_id, pdata, parent);
}

/**
 * ovpop_device_destroy() - unregister a device ovpop created
 * @dev: the device, as returned by ovpop_device_create()
 * @pdata: the auxdata platform_data it was created with, or NULL
 *
 * Clears OF_POPULATED and OF_POPULATED_BUS on the node while the device
 * still holds it, then drops the registration's reference. If OF_POPULATED
 * is clear already, a bus driver's of_platform_depopulate() is
 * unregistering the device (it clears the flag first): it is left to it
 * (with an auxdata @pdata, which that path would kfree(), only when the
 * bus notifier's ovpop_device_gone() sees the record first). The
 * platform_data pointer is cleared before the final put when it is
 * @pdata, since platform_device_release() would kfree() it.
 *
 * The device's node reference is dropped here, not by the device's release
 * (ovpop_device_drop_node() says why). An AMBA device's memory range is
 * released here too (its release would do it, and skips it once done), so
 * that the same overlay can come back at once: platform devices release
 * theirs in device_del().
 */
void ovpop_device_destroy(struct device *dev, void *pdata)
{
	struct device_node *np = dev->of_node;
	struct amba_device *adev;

	/*
	 * OF_POPULATED says who unregisters the device: the kernel's
	 * of_platform_device_destroy() clears it before it does, so a device
	 * whose flag is gone is being unregistered by a bus driver's
	 * of_platform_depopulate(), and ovpop_device_gone() lets it go.
	 */
	if (!test_and_clear_bit(OF_POPULATED, &np->_flags)) {
		pr_debug("%pOF: unregistered by other code\n", np);
		return;
	}
	device_del(dev);
	if (IS_ENABLED(CONFIG_ARM_AMBA) && dev->bus == &amba_bustype) {
		adev = to_amba_device(dev);
		if (adev->res.parent)
			release_resource(&adev->res);
	}
	of_node_clear_flag(np, OF_POPULATED_BUS);
	if (dev->platform_data == pdata)
		dev->platform_data = NULL;
	ovpop_device_drop_node(dev);
	put_device(dev);
}

/*
 * The kernel's device found last for a node, with a reference: the
 * children an overlay adds under a bus the kernel populated are notified
 * one after the other, and each would otherwise walk the bus (as the
 * kernel's own of_platform_notify() does, which makes its apply quadratic).
 * ovpop_kdev_lock protects it. It is taken from the reconfig and overlay
 * notifiers (under whatever OF locks the core holds while it notifies: the
 * overlay mutex and of_mutex, or none during a removal's reconfig
 * notifications) or alone, never with ovpop_lock; nothing is taken under
 * it. Only the populate core's lookups fill it (ovpop_find_kernel_device()),
 * from those notifiers. The reference is dropped when the node or any node
 * is detached, when the device is found unregistered, at the end of every
 * overlay apply and removal, and at exit: it never pins a node an overlay
 * removes.
 */
static DEFINE_MUTEX(ovpop_kdev_lock);
/* The kernel's device keeps its of_node until released: we hold it */
static struct device *ovpop_kdev;

static struct device *ovpop_kdev_cached(struct device_node *np)
{
	struct device *dev = NULL;

	mutex_lock(&ovpop_kdev_lock);
	if (ovpop_kdev && ovpop_kdev->of_node == np &&
	    device_is_registered(ovpop_kdev))
		dev = get_device(ovpop_kdev);
	mutex_unlock(&ovpop_kdev_lock);
	return dev;
}

static void ovpop_kdev_cache(struct device *dev)
{
	struct device *old;

	mutex_lock(&ovpop_kdev_lock);
	old = ovpop_kdev;
	ovpop_kdev = get_device(dev);
	mutex_unlock(&ovpop_kdev_lock);
	put_device(old);
}

/**
 * ovpop_kernel_device_forget() - drops the last device found, if for a node
 * @np: the node, or NULL for any
 */
void ovpop_kernel_device_forget(struct device_node *np)
{
	struct device *old = NULL;

	mutex_lock(&ovpop_kdev_lock);
	if (ovpop_kdev && (!np || ovpop_kdev->of_node == np)) {
		old = ovpop_kdev;
		ovpop_kdev = NULL;
	}
	mutex_unlock(&ovpop_kdev_lock);
	put_device(old);
}

/**
 * ovpop_kernel_device() - find a device that ovpop did not create
 * @np: the node
 *
 * Looks on the platform bus, then on the AMBA bus: both walk the bus, so
 * this is only for nodes that are not in ovpop's table.
 *
 * Return: the device with a reference the caller drops with put_device(),
 * or NULL.
 */
struct device *ovpop_kernel_device(struct device_node *np)
{
	struct platform_device *pdev = of_find_device_by_node(np);

	if (pdev)
		return &pdev->dev;
	if (IS_ENABLED(CONFIG_ARM_AMBA))
		return bus_find_device_by_of_node(&amba_bustype, np);
	return NULL;
}

/**
 * ovpop_find_kernel_device() - ovpop_kernel_device(), remembering the device
 * @np: the node
 *
 * For the populate core's notifiers: the device found last is remembered
 * (ovpop_kdev), so the siblings an overlay adds under one bus walk it once.
 *
 * Return: the device with a reference the caller drops with put_device(),
 * or NULL.
 */
struct device *ovpop_find_kernel_device(struct device_node *np)
{
	struct device *dev = ovpop_kdev_cached(np);

	if (dev)
		return dev;
	dev = ovpop_kernel_device(np);
	if (dev)
		ovpop_kdev_cache(dev);
	return dev;
}
