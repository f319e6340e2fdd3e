// SPDX-License-Identifier: GPL-2.0
/*
 * ovpop: device-tree overlays applied at runtime produce the right devices
 * (AMBA for primecells, children of new buses, auxdata applied) and take
 * them away cleanly; with an overlay loader in configfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/seq_file.h>

#include "ovpop.h"
#include "internal.h"

static char *root = "/";
module_param(root, charp, 0444);
MODULE_PARM_DESC(root, "Path of the subtree whose overlays ovpop populates (default /)");

static bool populate = true;
module_param(populate, bool, 0444);
MODULE_PARM_DESC(populate, "Create devices for overlays (default Y); N leaves it to the kernel");

static struct device_node *ovpop_root;
static struct dentry *ovpop_debugfs_dir;

/*
 * ovpop/stats in debugfs: the counts of stats.c, then "devices <n>", the
 * devices ovpop created and has not destroyed, and "tracking_bytes <n>",
 * the memory of their records and of the records of the overlays applied
 * through configfs.
 */
static int ovpop_debugfs_show(struct seq_file *m, void *unused)
{
	size_t bytes;
	unsigned int n = ovpop_core_devices(&bytes);

	ovpop_stats_show(m);
	seq_printf(m, "devices %u\ntracking_bytes %zu\n", n,
		   bytes + ovpop_stack_bytes());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ovpop_debugfs);

/* Without debugfs these are no-ops: the statistics are only not shown */
static void ovpop_debugfs_init(void)
{
	ovpop_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0444, ovpop_debugfs_dir, NULL,
			    &ovpop_debugfs_fops);
}

static void ovpop_debugfs_exit(void)
{
	debugfs_remove_recursive(ovpop_debugfs_dir);
}

static int __init ovpop_populate_root(void)
{
	int ret;

	if (!populate)
		return 0;
	ovpop_root = of_find_node_by_path(root);
	if (!ovpop_root) {
		pr_err("root=%s: no such node\n", root);
		return -ENODEV;
	}
	ret = ovpop_populate(ovpop_root, NULL, NULL, NULL);
	if (ret) {
		of_node_put(ovpop_root);
		ovpop_root = NULL;
	}
	return ret;
}

static void ovpop_depopulate_root(void)
{
	if (!ovpop_root)
		return;
	ovpop_depopulate_exit(ovpop_root);
	of_node_put(ovpop_root);
	ovpop_root = NULL;
}

static int __init ovpop_init(void)
{
	int ret;

	ret = ovpop_core_init();
	if (ret)
		return ret;
	ovpop_debugfs_init();
	ret = ovpop_notify_init();
	if (ret)
		goto err_debugfs;
	ret = ovpop_release_init();
	if (ret)
		goto err_notify;
	ret = ovpop_stack_init();
	if (ret)
		goto err_release;
	ret = ovpop_populate_root();
	if (ret)
		goto err_stack;
	ret = ovpop_configfs_init();
	if (ret)
		goto err_root;
	return 0;

err_root:
	ovpop_depopulate_root();
err_stack:
	ovpop_stack_exit();
err_release:
	ovpop_release_exit();
err_notify:
	ovpop_notify_exit();
err_debugfs:
	ovpop_debugfs_exit();
	ovpop_core_exit();
	return ret;
}
module_init(ovpop_init);

static void __exit ovpop_exit(void)
{
	ovpop_configfs_exit();
	ovpop_depopulate_root();
	ovpop_stack_exit();
	ovpop_release_exit();
	ovpop_notify_exit();
	ovpop_debugfs_exit();
	ovpop_core_exit();
}
module_exit(ovpop_exit);

MODULE_DESCRIPTION("Overlay-aware device population from the device tree, with a configfs overlay loader");
MODULE_LICENSE("GPL");
#ifdef OVPOP_VERSION
MODULE_VERSION(OVPOP_VERSION);	/* dkms.conf's PACKAGE_VERSION (Kbuild) */
#endif
