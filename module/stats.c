// SPDX-License-Identifier: GPL-2.0
/*
 * What ovpop did, counted, for ovpop/stats in debugfs (main.c shows it)
 * and the benchmark (scripts/bench.sh). For each of these, "<name>_count"
 * is the number of calls; a module built with OVPOP_TIMING=y (the
 * benchmark's build, internal.h) also shows "<name>_ns", their time summed
 * in ktime_get_ns() nanoseconds:
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
 * Counts and sums are since the module was loaded.
 */
#include <linux/atomic.h>
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

/**
 * ovpop_stats_account() - counts one call, and adds its time
 * @stat: what was called
 * @ns: what it took, or 0 when not timed
 */
void ovpop_stats_account(enum ovpop_stat stat, u64 ns)
{
	if (ovpop_timed())
		atomic64_add(ns, &ovpop_stat_ns[stat]);
	atomic64_inc(&ovpop_stat_count[stat]);
}

/**
 * ovpop_stats_show() - prints the counts (and times) as ovpop/stats shows
 * @m: the file
 */
void ovpop_stats_show(struct seq_file *m)
{
	int i;

	for (i = 0; i < OVPOP_STAT_NR; i++) {
		if (ovpop_timed())
			seq_printf(m, "%s_ns %lld\n", ovpop_stat_names[i],
				   atomic64_read(&ovpop_stat_ns[i]));
		seq_printf(m, "%s_count %lld\n", ovpop_stat_names[i],
			   atomic64_read(&ovpop_stat_count[i]));
	}
}
