// SPDX-License-Identifier: GPL-2.0
/*
 * Sample board: a board file converted to the device tree, the way
 * of_platform_populate() with a bus table and OF_DEV_AUXDATA made it
 * possible in 2011, with ovpop_populate() in its place so that the board
 * can arrive in an overlay (overlays/sample-board.dtso) and grow later
 * (overlays/sample-board-more.dtso); the walk-through is docs/sample-board.md.
 *
 * The board file this replaces declared its devices statically:
 *
 *	static struct ovpop_sample_pdata front_panel_pdata = {
 *		.label = "front-panel",
 *		.gain = 7,
 *	};
 *
 *	static struct resource widget0_resources[] = {
 *		DEFINE_RES_MEM(0x0c800000, SZ_4K),
 *	};
 *
 *	static struct platform_device widget0_device = {
 *		.name = "sample-widget",
 *		.id = 0,
 *		.resource = widget0_resources,
 *		.num_resources = ARRAY_SIZE(widget0_resources),
 *		.dev.platform_data = &front_panel_pdata,
 *	};
 *
 *	(widget1_device likewise: "sample-widget".1 at 0x0c801000 with
 *	 rear_panel_pdata)
 *
 *	static AMBA_APB_DEVICE(sample_gpio, "sample-gpio", 0, 0x09030000,
 *			       { 39 }, NULL);
 *
 *	static struct platform_device *sample_devices[] __initdata = {
 *		&widget0_device,
 *		&widget1_device,
 *	};
 *
 *	static void __init sample_board_init(void)
 *	{
 *		platform_add_devices(sample_devices,
 *				     ARRAY_SIZE(sample_devices));
 *		amba_device_register(&sample_gpio_device, &iomem_resource);
 *	}
 *
 * The addresses, interrupts and the bus now live in the device tree. What
 * the tree cannot say yet stays here: the names other code knows the
 * devices by ("sample-widget.0" in clock and regulator lookups, say) and
 * the platform_data the widget driver reads. Both go into the auxdata
 * table, and the board's init becomes
 *
 *	of_platform_populate(NULL, sample_bus_match, sample_auxdata, NULL);
 *
 * Here the board is a platform driver for its own node instead, and the
 * one line is ovpop_populate() with the same arguments: the devices then
 * also follow overlays that add or remove nodes below the board later.
 */

#include <linux/device.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/of_platform.h>
#include <linux/platform_device.h>

#include "ovpop.h"
#include "ovpop_sample.h"

static struct ovpop_sample_pdata ovpop_sample_front_panel = {
	.label = "front-panel",
	.gain = 7,
};

static struct ovpop_sample_pdata ovpop_sample_rear_panel = {
	.label = "rear-panel",
	.gain = 2,
};

/*
 * Buses whose children get devices too: the board's own local bus and, as
 * of_default_bus_match_table has it, simple-bus. A node matching none of
 * them gets a device, but its children do not.
 */
static const struct of_device_id ovpop_sample_bus_match[] = {
	{ .compatible = "ovpop,sample-bus" },
	{ .compatible = "simple-bus" },
	{ }
};

/*
 * Name and platform_data by compatible and the node's first register
 * address (translated to a CPU address). Widget 1 is not in the board's
 * overlay: a later overlay adds it, and gets this entry then. Both tables
 * are used until ovpop_depopulate(), so they are not __initconst as they
 * were in a board file.
 */
static const struct of_dev_auxdata ovpop_sample_auxdata[] = {
	OF_DEV_AUXDATA("ovpop,sample-widget", 0x0c800000, "sample-widget.0",
		       &ovpop_sample_front_panel),
	OF_DEV_AUXDATA("ovpop,sample-widget", 0x0c801000, "sample-widget.1",
		       &ovpop_sample_rear_panel),
	OF_DEV_AUXDATA("arm,pl061", 0x09030000, "sample-gpio", NULL),
	{ }
};

static void ovpop_sample_board_depopulate(void *np)
{
	ovpop_depopulate(np);
}

/*
 * Creates the devices below the board's node, with the board as their
 * parent; they go again when the board is unbound (or its node removed).
 */
static int ovpop_sample_board_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct device_node *np = dev->of_node;
	int ret;

	ret = ovpop_populate(np, ovpop_sample_bus_match, ovpop_sample_auxdata,
			     dev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot populate %pOF\n", np);

	return devm_add_action_or_reset(dev, ovpop_sample_board_depopulate,
					np);
}

static const struct of_device_id ovpop_sample_board_of_match[] = {
	{ .compatible = "ovpop,sample-board" },
	{ }
};
MODULE_DEVICE_TABLE(of, ovpop_sample_board_of_match);

/* No remove callback: the devm action depopulates */
static struct platform_driver ovpop_sample_board_driver = {
	.probe = ovpop_sample_board_probe,
	.driver = {
		.name = "ovpop-sample-board",
		.of_match_table = ovpop_sample_board_of_match,
	},
};
module_platform_driver(ovpop_sample_board_driver);

MODULE_DESCRIPTION("ovpop sample board: a board file converted to ovpop_populate()");
MODULE_LICENSE("GPL");
