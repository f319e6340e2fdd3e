// SPDX-License-Identifier: GPL-2.0
/*
 * Stands in for the configfs overlay loader that Raspberry Pi and Xilinx
 * kernels build in (CONFIG_OF_CONFIGFS, drivers/of/configfs.c there): it
 * takes device-tree/overlays in configfs, without items, so that ovpop
 * loads next to it (tests/guest/iface-otherloader.sh). Overlays are then
 * applied by another way (ovpop_bench's debugfs apply).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/module.h>

static const struct config_item_type otherloader_type = {
	.ct_owner = THIS_MODULE,
};

static struct config_group otherloader_overlays;

static struct configfs_subsystem otherloader_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "device-tree",
			.ci_type = &otherloader_type,
		},
	},
};

static int __init otherloader_init(void)
{
	config_group_init(&otherloader_subsys.su_group);
	config_group_init_type_name(&otherloader_overlays, "overlays",
				    &otherloader_type);
	configfs_add_default_group(&otherloader_overlays,
				   &otherloader_subsys.su_group);
	mutex_init(&otherloader_subsys.su_mutex);
	return configfs_register_subsystem(&otherloader_subsys);
}
module_init(otherloader_init);

static void __exit otherloader_exit(void)
{
	configfs_unregister_subsystem(&otherloader_subsys);
}
module_exit(otherloader_exit);

MODULE_DESCRIPTION("ovpop test: another loader owning configfs device-tree");
MODULE_LICENSE("GPL");
