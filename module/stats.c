// SPDX-License-Identifier: GPL-2.0
/*
 * What ovpop's device work costs, in debugfs (ovpop/stats), for the
 * benchmark (scripts/bench.sh) and for anyone asking where an apply's time
 * went:
 *
 *   add_ns <n>          time spent creating devices for added nodes
 *   add_events <n>      reconfig notifications of added nodes
 *   remove_ns <n>       time spent destroying devices of removed nodes
 *   remove_events <n>   reconfig notifications of removed nodes
 *   register_ns <n>     the part of add_ns spent in the driver core's
 *                       device_add() (amba_device_add() for AMBA devices)
 *   registered <n>      devices registered
 *   devices <n>         devices ovpop has created and not destroyed
 *   tracking_bytes <n>  memory of their records and of the records of the
 *                       overlays applied through configfs
 *
 * Times are sums since the module was loaded (ktime_get_ns(), including
 * the drivers' probes that run synchronously from device_add()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "internal.h"

static atomic64_t ovpop_stat[OVPOP_STAT_NR];
static struct dentry *ovpop_debugfs;

/**
 * ovpop_stats_account() - adds one notification's (or registration's) time
 * @stat: OVPOP_STAT_ADD, OVPOP_STAT_REMOVE or OVPOP_STAT_REGISTER
 * @ns: what handling it (or registering the device) took
 */
void ovpop_stats_account(enum ovpop_stat stat, u64 ns)
{
	atomic64_add(ns, &ovpop_stat[stat]);
	atomic64_inc(&ovpop_stat[stat + 1]);
}

static int ovpop_stats_show(struct seq_file *m, void *unused)
{
	size_t bytes;
	unsigned int n = ovpop_core_devices(&bytes);

	seq_printf(m, "add_ns %lld\nadd_events %lld\n",
		   atomic64_read(&ovpop_stat[OVPOP_STAT_ADD]),
		   atomic64_read(&ovpop_stat[OVPOP_STAT_ADD + 1]));
	seq_printf(m, "remove_ns %lld\nremove_events %lld\n",
		   atomic64_read(&ovpop_stat[OVPOP_STAT_REMOVE]),
		   atomic64_read(&ovpop_stat[OVPOP_STAT_REMOVE + 1]));
	seq_printf(m, "register_ns %lld\nregistered %lld\n",
		   atomic64_read(&ovpop_stat[OVPOP_STAT_REGISTER]),
		   atomic64_read(&ovpop_stat[OVPOP_STAT_REGISTER + 1]));
	seq_printf(m, "devices %u\ntracking_bytes %zu\n", n,
		   bytes + ovpop_layers_bytes());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ovpop_stats);

/* Without debugfs these are no-ops: the statistics are only not shown */
void ovpop_stats_init(void)
{
	ovpop_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0444, ovpop_debugfs, NULL,
			    &ovpop_stats_fops);
}

void ovpop_stats_exit(void)
{
	debugfs_remove_recursive(ovpop_debugfs);
}
