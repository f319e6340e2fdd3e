// SPDX-License-Identifier: GPL-2.0
/*
 * Where ovpop's time goes, in debugfs (ovpop/stats), for the benchmark
 * (scripts/bench.sh) and for anyone asking where an apply's time went.
 * For each of these, "<name>_ns <sum>" and "<name>_count <calls>":
 *
 *   add          ovpop's reconfig notifier for an added (or enabled) node:
 *                creating its devices
 *   register     of which: the driver core's device_add() (amba_device_add()
 *                for AMBA devices), probes that run from it included
 *   remove       the notifier for a removed (or disabled) node: destroying
 *                its devices
 *   precheck     the loader's conflict check before it applies an overlay
 *                that could conflict (blob.c says which)
 *   apply        the loader's of_overlay_fdt_apply() calls, the
 *                notifications (and so "add") included
 *   unapply      the loader's of_overlay_remove() calls, with the wait for
 *                late releases (the notifications of the removal included)
 *
 * then "devices <n>", the devices ovpop created and has not destroyed, and
 * "tracking_bytes <n>", the memory of their records and of the records of
 * the overlays applied through configfs. Sums are since the module was
 * loaded, in ktime_get_ns() nanoseconds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "internal.h"

static const char * const ovpop_stat_names[OVPOP_STAT_NR] = {
	[OVPOP_STAT_ADD] = "add",
	[OVPOP_STAT_REGISTER] = "register",
	[OVPOP_STAT_REMOVE] = "remove",
	[OVPOP_STAT_PRECHECK] = "precheck",
	[OVPOP_STAT_APPLY] = "apply",
	[OVPOP_STAT_UNAPPLY] = "unapply",
};

static atomic64_t ovpop_stat_ns[OVPOP_STAT_NR];
static atomic64_t ovpop_stat_count[OVPOP_STAT_NR];
static struct dentry *ovpop_debugfs;

/**
 * ovpop_stats_account() - adds the time of one call to the statistics
 * @stat: what was timed
 * @ns: what it took
 */
void ovpop_stats_account(enum ovpop_stat stat, u64 ns)
{
	atomic64_add(ns, &ovpop_stat_ns[stat]);
	atomic64_inc(&ovpop_stat_count[stat]);
}

static int ovpop_stats_show(struct seq_file *m, void *unused)
{
	size_t bytes;
	unsigned int n = ovpop_core_devices(&bytes);
	int i;

	for (i = 0; i < OVPOP_STAT_NR; i++)
		seq_printf(m, "%s_ns %lld\n%s_count %lld\n",
			   ovpop_stat_names[i], atomic64_read(&ovpop_stat_ns[i]),
			   ovpop_stat_names[i],
			   atomic64_read(&ovpop_stat_count[i]));
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
