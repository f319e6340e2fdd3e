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
 *
 * Everything is device-managed, so neither driver needs a remove callback
 * (which also keeps the module free of the int/void .remove and .remove_new
 * differences between kernel releases).
 */

#include <linux/amba/bus.h>
#include <linux/device.h>
#include <linux/ioport.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/sysfs.h>

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

static int ovpop_test_platform_probe(struct platform_device *pdev)
{
	int irq;

	if (READ_ONCE(defer_probe) &&
	    of_property_read_bool(pdev->dev.of_node, "ovpop,defer-probe"))
		return dev_err_probe(&pdev->dev, -EPROBE_DEFER,
				     "deferred on purpose (defer_probe=Y)\n");

	irq = platform_get_irq_optional(pdev, 0);
	if (irq < 0 && irq != -ENXIO)
		return dev_err_probe(&pdev->dev, irq, "failed to get irq\n");

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

	ret = platform_driver_register(&ovpop_test_platform_driver);
	if (ret)
		return ret;

	ret = amba_driver_register(&ovpop_test_amba_driver);
	if (ret)
		platform_driver_unregister(&ovpop_test_platform_driver);

	return ret;
}
module_init(ovpop_testdrv_init);

static void __exit ovpop_testdrv_exit(void)
{
	amba_driver_unregister(&ovpop_test_amba_driver);
	platform_driver_unregister(&ovpop_test_platform_driver);
}
module_exit(ovpop_testdrv_exit);

MODULE_DESCRIPTION("ovpop test platform and AMBA drivers");
MODULE_LICENSE("GPL");
