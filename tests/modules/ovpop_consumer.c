// SPDX-License-Identifier: GPL-2.0
/*
 * Test consumer of the ovpop_populate() API.
 *
 * On load, populates the node named by the "root" parameter (default
 * /ovpop-consumer, added by overlays/consumer-root.dtso) with the default
 * bus table and an auxdata table that renames the children of that node
 * and gives them platform_data (struct ovpop_test_pdata). Children added
 * there later (overlays/consumer-more.dtso) must be created with the same
 * table. On unload, depopulates it again.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/of_platform.h>
#include <linux/printk.h>

#include "ovpop.h"
#include "ovpop_test.h"

static char *root = "/ovpop-consumer";
module_param(root, charp, 0444);
MODULE_PARM_DESC(root, "Path of the node to populate (default /ovpop-consumer)");

static struct ovpop_test_pdata ovpop_consumer_plat_pdata = {
	.label = "consumer-plat-pdata",
};

static struct ovpop_test_pdata ovpop_consumer_amba_pdata = {
	.label = "consumer-amba-pdata",
};

static struct ovpop_test_pdata ovpop_consumer_more_pdata = {
	.label = "consumer-more-pdata",
};

/* Must stay valid until ovpop_depopulate(): static, like the kernel's. */
static const struct of_dev_auxdata ovpop_consumer_auxdata[] = {
	OF_DEV_AUXDATA("ovpop,test-platform", 0x0c400000, "consumer-plat",
		       &ovpop_consumer_plat_pdata),
	OF_DEV_AUXDATA("ovpop,test-amba", 0x0c401000, "consumer-amba",
		       &ovpop_consumer_amba_pdata),
	OF_DEV_AUXDATA("ovpop,test-platform", 0x0c402000, "consumer-more",
		       &ovpop_consumer_more_pdata),
	{ }
};

static struct device_node *ovpop_consumer_np;

static int __init ovpop_consumer_init(void)
{
	struct device_node *np;
	int ret;

	np = of_find_node_by_path(root);
	if (!np) {
		pr_err("%s: node not found\n", root);
		return -ENODEV;
	}

	ret = ovpop_populate(np, NULL, ovpop_consumer_auxdata, NULL);
	if (ret) {
		/* nothing is left populated on failure */
		pr_err("%pOF: ovpop_populate() failed: %d\n", np, ret);
		of_node_put(np);
		return ret;
	}

	ovpop_consumer_np = np;

	return 0;
}
module_init(ovpop_consumer_init);

static void __exit ovpop_consumer_exit(void)
{
	ovpop_depopulate(ovpop_consumer_np);
	of_node_put(ovpop_consumer_np);
}
module_exit(ovpop_consumer_exit);

MODULE_DESCRIPTION("ovpop_populate() test consumer");
MODULE_LICENSE("GPL");
