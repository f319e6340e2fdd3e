// SPDX-License-Identifier: GPL-2.0
/*
 * Test drivers for ovpop.
 *
 * A platform driver for "ovpop,test-platform" nodes and an AMBA driver for
 * primecells whose periphid is forced to OVPOP_TEST_PERIPHID. Each bound
 * device gets a read-only sysfs attribute, ovpop_report, with one line
 * describing what the device was created with:
 *
 *   bus=<platform|amba> name=<dev_name> res=<start>-<end>|none
 *   irq=<n>|none pdata=<label>|none [periphid=<0x%08x>]
 *
 * (a single line; periphid only on the AMBA bus). The in-guest tests read
 * it to check names, resources, interrupts and auxdata platform_data.
 *
 * A platform node with the property "ovpop,defer-probe" defers its probe
 * (-EPROBE_DEFER) while the module parameter defer_probe is Y (default).
 * One with "ovpop,populate" populates its children in probe with
 * devm_of_platform_populate(), as MFD drivers do.
 *
 * A platform node with "ovpop,late-release-ms = <N>" gets a child device
 * "<dev_name>.late" holding a reference to the node, as the class devices
 * of subsystems do (a regulator's). When the driver unbinds, the child is
 * deleted and its last reference is put N ms later: a device that someone
 * still held, or any release under DEBUG_KOBJECT_RELEASE. With
 * "ovpop,late-release-of-mutex" as well, the late put first applies an
 * empty changeset, which takes the OF core's of_mutex: a holder of the
 * last reference that waits for that lock.
 *
 * Everything is device-managed, so neither driver needs a remove callback
 * (which also keeps the module free of the int/void .remove and .remove_new
 * differences between kernel releases).
 */

#include <linux/amba/bus.h>
#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/ioport.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/of_platform.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "ovpop_test.h"

static ssize_t ovpop_report_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	const char *report = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", report);
}
static DEVICE_ATTR_RO(ovpop_report);

static struct attribute *ovpop_test_attrs[] = {
	&dev_attr_ovpop_report.attr,
	NULL
};
ATTRIBUTE_GROUPS(ovpop_test);

/*
 * Build the report line and keep it as @dev's driver data. @res may be
 * NULL, @irq 0 or negative for none; @extra is appended as it is.
 */
static int ovpop_test_report(struct device *dev, const char *bus,
			     const struct resource *res, int irq,
			     const char *extra)
{
	const struct ovpop_test_pdata *pdata = dev_get_platdata(dev);
	char res_str[40] = "none";
	char irq_str[12] = "none";
	char *report;

	if (res)
		snprintf(res_str, sizeof(res_str), "0x%llx-0x%llx",
			 (unsigned long long)res->start,
			 (unsigned long long)res->end);
	if (irq > 0)
		snprintf(irq_str, sizeof(irq_str), "%d", irq);

	report = devm_kasprintf(dev, GFP_KERNEL,
				"bus=%s name=%s res=%s irq=%s pdata=%.*s%s",
				bus, dev_name(dev), res_str, irq_str,
				(int)sizeof(pdata->label),
				pdata ? pdata->label : "none", extra);
	if (!report)
		return -ENOMEM;

	dev_set_drvdata(dev, report);
	dev_dbg(dev, "%s\n", report);

	return 0;
}

static bool defer_probe = true;
module_param(defer_probe, bool, 0644);
MODULE_PARM_DESC(defer_probe, "Nodes with ovpop,defer-probe defer their probe while Y (default)");

/* A child device released late; the module waits for all at exit */
struct ovpop_test_late {
	struct device dev;
	struct delayed_work put;
	unsigned int ms;
	bool of_mutex;
};

/* Puts pending or running; the queue, so that none runs after the exit */
static atomic_t ovpop_test_late_pending = ATOMIC_INIT(0);
static struct workqueue_struct *ovpop_test_wq;

static void ovpop_test_late_release(struct device *dev)
{
	struct ovpop_test_late *late = container_of(dev, struct ovpop_test_late, dev);

	of_node_put(dev->of_node);
	kfree(late);
}

static void ovpop_test_late_put(struct work_struct *work)
{
	struct ovpop_test_late *late = container_of(to_delayed_work(work),
						    struct ovpop_test_late, put);
	struct of_changeset cs;

	if (late->of_mutex) {
		of_changeset_init(&cs);
		if (of_changeset_apply(&cs))
			dev_err(&late->dev, "empty changeset refused\n");
		of_changeset_destroy(&cs);
	}
	put_device(&late->dev);
	if (atomic_dec_and_test(&ovpop_test_late_pending))
		wake_up_var(&ovpop_test_late_pending);
}

static void ovpop_test_late_del(void *data)
{
	struct ovpop_test_late *late = data;

	device_del(&late->dev);
	atomic_inc(&ovpop_test_late_pending);
	queue_delayed_work(ovpop_test_wq, &late->put, msecs_to_jiffies(late->ms));
}

static int ovpop_test_late_add(struct device *parent, unsigned int ms,
			       bool of_mutex)
{
	struct ovpop_test_late *late;
	int ret;

	late = kzalloc(sizeof(*late), GFP_KERNEL);
	if (!late)
		return -ENOMEM;
	late->ms = ms;
	late->of_mutex = of_mutex;
	INIT_DELAYED_WORK(&late->put, ovpop_test_late_put);
	device_initialize(&late->dev);
	late->dev.parent = parent;
	late->dev.release = ovpop_test_late_release;
	late->dev.of_node = of_node_get(parent->of_node);
	ret = dev_set_name(&late->dev, "%s.late", dev_name(parent));
	if (!ret)
		ret = device_add(&late->dev);
	if (ret) {
		put_device(&late->dev);
		return ret;
	}
	return devm_add_action_or_reset(parent, ovpop_test_late_del, late);
}

static int ovpop_test_platform_probe(struct platform_device *pdev)
{
	u32 late_ms;
	int irq, ret;

	if (READ_ONCE(defer_probe) &&
	    of_property_read_bool(pdev->dev.of_node, "ovpop,defer-probe"))
		return dev_err_probe(&pdev->dev, -EPROBE_DEFER,
				     "deferred on purpose (defer_probe=Y)\n");

	irq = platform_get_irq_optional(pdev, 0);
	if (irq < 0 && irq != -ENXIO)
		return dev_err_probe(&pdev->dev, irq, "failed to get irq\n");

	if (of_property_read_bool(pdev->dev.of_node, "ovpop,populate")) {
		ret = devm_of_platform_populate(&pdev->dev);
		if (ret)
			return dev_err_probe(&pdev->dev, ret, "cannot populate\n");
	}

	if (!of_property_read_u32(pdev->dev.of_node, "ovpop,late-release-ms",
				  &late_ms)) {
		ret = ovpop_test_late_add(&pdev->dev, late_ms,
					  of_property_read_bool(pdev->dev.of_node,
								"ovpop,late-release-of-mutex"));
		if (ret)
			return dev_err_probe(&pdev->dev, ret,
					     "cannot add the late child\n");
	}

	return ovpop_test_report(&pdev->dev, "platform",
				 platform_get_resource(pdev, IORESOURCE_MEM, 0),
				 irq, "");
}

static const struct of_device_id ovpop_test_of_match[] = {
	{ .compatible = "ovpop,test-platform" },
	{ }
};
MODULE_DEVICE_TABLE(of, ovpop_test_of_match);

static struct platform_driver ovpop_test_platform_driver = {
	.probe = ovpop_test_platform_probe,
	.driver = {
		.name = "ovpop-test-platform",
		.of_match_table = ovpop_test_of_match,
		.dev_groups = ovpop_test_groups,
	},
};

static int ovpop_test_amba_probe(struct amba_device *adev,
				 const struct amba_id *id)
{
	char extra[24];

	snprintf(extra, sizeof(extra), " periphid=0x%08x", adev->periphid);

	return ovpop_test_report(&adev->dev, "amba", &adev->res, adev->irq[0],
				 extra);
}

static const struct amba_id ovpop_test_amba_ids[] = {
	{
		.id = OVPOP_TEST_PERIPHID,
		.mask = 0xffffffff,
	},
	{ 0, 0 },
};
MODULE_DEVICE_TABLE(amba, ovpop_test_amba_ids);

static struct amba_driver ovpop_test_amba_driver = {
	.drv = {
		.name = "ovpop-test-amba",
		.dev_groups = ovpop_test_groups,
	},
	.probe = ovpop_test_amba_probe,
	.id_table = ovpop_test_amba_ids,
};

static int __init ovpop_testdrv_init(void)
{
	int ret;

	ovpop_test_wq = alloc_workqueue("ovpop_test", WQ_UNBOUND, 0);
	if (!ovpop_test_wq)
		return -ENOMEM;

	ret = platform_driver_register(&ovpop_test_platform_driver);
	if (ret)
		goto err_wq;

	ret = amba_driver_register(&ovpop_test_amba_driver);
	if (ret)
		goto err_platform;

	return 0;

err_platform:
	platform_driver_unregister(&ovpop_test_platform_driver);
err_wq:
	destroy_workqueue(ovpop_test_wq);
	return ret;
}
module_init(ovpop_testdrv_init);

static void __exit ovpop_testdrv_exit(void)
{
	amba_driver_unregister(&ovpop_test_amba_driver);
	platform_driver_unregister(&ovpop_test_platform_driver);
	/* the late children's puts run this module's code */
	wait_var_event(&ovpop_test_late_pending,
		       !atomic_read(&ovpop_test_late_pending));
	destroy_workqueue(ovpop_test_wq);
}
module_exit(ovpop_testdrv_exit);

MODULE_DESCRIPTION("ovpop test platform and AMBA drivers");
MODULE_LICENSE("GPL");
