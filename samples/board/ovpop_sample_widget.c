// SPDX-License-Identifier: GPL-2.0
/*
 * Sample widget driver: the driver side of the sample board
 * (ovpop_sample_board.c).
 *
 * A widget is configured by a label and a gain. Before the board moved to
 * the device tree, the board file gave both in platform_data (struct
 * ovpop_sample_pdata) on a static "sample-widget.0" platform device; the
 * driver keeps reading that, so converting the board needed no change here
 * beyond the of_match_table: the board passes the same struct through its
 * auxdata table. A widget described only in the device tree, without
 * auxdata, is configured by its "label" and "ovpop,gain" properties.
 *
 * Each bound widget shows its configuration in sysfs: label, gain, and
 * config_source ("platform_data" or "devicetree"). The widget has no
 * registers to touch; its memory resource is only reported.
 */

#include <linux/device.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/sysfs.h>

#include "ovpop_sample.h"

/**
 * struct ovpop_sample_widget - a bound widget
 * @label: its label, a copy owned by the device
 * @gain: its gain
 * @source: where the configuration came from: "platform_data" or
 *	"devicetree"
 */
struct ovpop_sample_widget {
	const char *label;
	u32 gain;
	const char *source;
};

static ssize_t label_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	const struct ovpop_sample_widget *w = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", w->label);
}
static DEVICE_ATTR_RO(label);

static ssize_t gain_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	const struct ovpop_sample_widget *w = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", w->gain);
}
static DEVICE_ATTR_RO(gain);

static ssize_t config_source_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	const struct ovpop_sample_widget *w = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", w->source);
}
static DEVICE_ATTR_RO(config_source);

static struct attribute *ovpop_sample_widget_attrs[] = {
	&dev_attr_label.attr,
	&dev_attr_gain.attr,
	&dev_attr_config_source.attr,
	NULL
};
ATTRIBUTE_GROUPS(ovpop_sample_widget);

/* Without platform_data: the "label" and "ovpop,gain" properties */
static int ovpop_sample_widget_from_dt(struct device *dev,
				       struct ovpop_sample_widget *w)
{
	int ret;

	ret = device_property_read_string(dev, "label", &w->label);
	if (ret)
		return dev_err_probe(dev, ret,
				     "no platform_data and no \"label\" property\n");
	ret = device_property_read_u32(dev, "ovpop,gain", &w->gain);
	if (ret)
		return dev_err_probe(dev, ret,
				     "no platform_data and no \"ovpop,gain\" property\n");
	w->source = "devicetree";
	return 0;
}

static int ovpop_sample_widget_probe(struct platform_device *pdev)
{
	const struct ovpop_sample_pdata *pdata = dev_get_platdata(&pdev->dev);
	struct device *dev = &pdev->dev;
	struct ovpop_sample_widget *w;
	struct resource *res;
	int ret;

	res = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	if (!res)
		return dev_err_probe(dev, -EINVAL, "no register window\n");

	w = devm_kzalloc(dev, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;

	if (pdata) {
		if (!pdata->label)
			return dev_err_probe(dev, -EINVAL,
					     "platform_data without a label\n");
		w->label = pdata->label;
		w->gain = pdata->gain;
		w->source = "platform_data";
	} else {
		ret = ovpop_sample_widget_from_dt(dev, w);
		if (ret)
			return ret;
	}
	if (w->gain > OVPOP_SAMPLE_MAX_GAIN)
		return dev_err_probe(dev, -EINVAL, "gain %u out of range 0-%u\n",
				     w->gain, OVPOP_SAMPLE_MAX_GAIN);

	/* neither the board's struct nor the node outlives us for sure */
	w->label = devm_kstrdup(dev, w->label, GFP_KERNEL);
	if (!w->label)
		return -ENOMEM;

	platform_set_drvdata(pdev, w);
	dev_info(dev, "%s, gain %u, at %pR (from %s)\n", w->label, w->gain,
		 res, w->source);
	return 0;
}

static const struct of_device_id ovpop_sample_widget_of_match[] = {
	{ .compatible = "ovpop,sample-widget" },
	{ }
};
MODULE_DEVICE_TABLE(of, ovpop_sample_widget_of_match);

/*
 * Device-managed throughout, so no remove callback (whose type differs
 * between the kernel releases ovpop supports).
 */
static struct platform_driver ovpop_sample_widget_driver = {
	.probe = ovpop_sample_widget_probe,
	.driver = {
		.name = "sample-widget",
		.of_match_table = ovpop_sample_widget_of_match,
		.dev_groups = ovpop_sample_widget_groups,
	},
};
module_platform_driver(ovpop_sample_widget_driver);

MODULE_DESCRIPTION("ovpop sample widget driver (platform_data or device tree)");
MODULE_LICENSE("GPL");
