// SPDX-License-Identifier: GPL-2.0
/*
 * AMBA device creation for "arm,primecell" nodes.
 *
 * The kernel's of_amba_device_create() is static, so this rebuilds it from
 * the exported amba_device_alloc()/amba_device_add(): one memory resource
 * (reg[0]), IRQs decoded by the AMBA bus at probe, and the
 * "arm,primecell-periphid" property overriding the ID read from hardware.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/amba/bus.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/ioport.h>
#include <linux/ktime.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/of_device.h>
#include <linux/platform_device.h>

#include "compat.h"
#include "internal.h"

/**
 * ovpop_amba_create() - create and register an AMBA device for a node
 * @np: an "arm,primecell" node
 * @bus_id: device name from auxdata, or NULL for the default name
 * @pdata: platform_data from auxdata, or NULL; never freed by the device
 * @parent: parent device, or NULL for the platform bus
 *
 * Return: the registered device (the registration holds the only
 * reference), or an ERR_PTR: -EINVAL without a usable reg, -EBUSY when the
 * range overlaps a registered one, -ENOMEM.
 */
struct device *ovpop_amba_create(struct device_node *np, const char *bus_id,
				 void *pdata, struct device *parent)
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
	t0 = ktime_get_ns();
	ret = amba_device_add(adev, &iomem_resource);
	ovpop_stats_account(OVPOP_STAT_REGISTER, ktime_get_ns() - t0);
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
