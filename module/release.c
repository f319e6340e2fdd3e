// SPDX-License-Identifier: GPL-2.0
/*
 * Removing an overlay applied through configfs: its nodes are let go before
 * the OF core frees them.
 *
 * of_overlay_remove() frees the changeset right after the
 * OF_OVERLAY_POST_REMOVE notifications. Each node the overlay attached must
 * then hold only the references of the changeset's entries on it
 * (__of_changeset_entry_destroy(): "memory leak, expected refcount 1");
 * otherwise the core leaks it and, when the last reference goes, prints it
 * through a parent it has already freed. A device drops its node reference
 * when it is released, which is not when it is deleted if someone still
 * holds it, and never with DEBUG_KOBJECT_RELEASE (1-4 s later). ovpop's own
 * devices drop theirs when destroyed (device.c), but the class devices that
 * drivers register below them keep theirs until released (a regulator's, for
 * one).
 *
 * So while the loader removes an overlay, the nodes it attached are noted as
 * the core detaches them (reconfig notifications, with the number of entries
 * the apply notified on each), and at POST_REMOVE the remover waits, bounded,
 * until each holds no more than those entries' references. The pointers are
 * valid without references of their own: the entries hold the nodes until
 * the changeset is freed, after POST_REMOVE. Nothing is kept after it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/notifier.h>
#include <linux/of.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "internal.h"

/* Longer than DEBUG_KOBJECT_RELEASE's longest delay (4 s), under TCG too */
#define OVPOP_RELEASE_WAIT_MS	10000

/* A node the removal detached, with the references its entries hold */
struct ovpop_detached {
	struct device_node *np;
	unsigned int entries;
};

/*
 * The removal in progress. Set and cleared by the removing task under
 * ovpop_stack_lock; the notifiers use it only in that task (the OF core
 * notifies a removal from the removing task), so they need no lock.
 */
static struct {
	struct task_struct *task;
	const struct ovpop_layer *layer;
	struct ovpop_detached *nodes;
	unsigned int n, size, hint;
} ovpop_removal;

/**
 * ovpop_release_note() - notes a node the removal in progress detached
 * @np: the node of a detach notification
 *
 * Called by the reconfig notifier for every detach. Nodes of other
 * changesets, existing nodes and nodes the layer did not record are not
 * waited for.
 */
void ovpop_release_note(struct device_node *np)
{
	struct ovpop_detached *nodes;
	unsigned int entries;

	if (READ_ONCE(ovpop_removal.task) != current ||
	    !of_node_check_flag(np, OF_OVERLAY))
		return;
	entries = ovpop_layer_entries(ovpop_removal.layer, np,
				      &ovpop_removal.hint);
	if (!entries)
		return;
	if (ovpop_grow((void **)&ovpop_removal.nodes, &ovpop_removal.size,
		       ovpop_removal.n, sizeof(*nodes)))
		return;		/* not waited for: at worst the core reports it */
	nodes = ovpop_removal.nodes;
	nodes[ovpop_removal.n].np = np;
	nodes[ovpop_removal.n++].entries = entries;
}

/* Forgets the noted nodes: they may be freed once the removal is over */
static void ovpop_release_forget(void)
{
	kfree(ovpop_removal.nodes);
	ovpop_removal.nodes = NULL;
	ovpop_removal.n = 0;
	ovpop_removal.size = 0;
}

/* Waits until every detached node holds only its entries' references */
static void ovpop_release_wait(void)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(OVPOP_RELEASE_WAIT_MS);
	unsigned long start = jiffies;
	struct ovpop_detached *d;
	unsigned int i, refs;

	for (i = 0; i < ovpop_removal.n; i++) {
		d = &ovpop_removal.nodes[i];
		while ((refs = kref_read(&d->np->kobj.kref)) > d->entries) {
			if (time_after(jiffies, deadline)) {
				pr_warn("%pOF: %u references, %u expected, after %u ms: the OF core will report a leak\n",
					d->np, refs, d->entries,
					OVPOP_RELEASE_WAIT_MS);
				break;
			}
			msleep(20);
		}
	}
	if (time_after(jiffies, start))
		pr_debug("waited %u ms for the overlay's nodes to be released\n",
			 jiffies_to_msecs(jiffies - start));
}

static int ovpop_overlay_notify(struct notifier_block *nb,
				unsigned long action, void *arg)
{
	/* the apply or removal is over: pin no device of the kernel's */
	if (action == OF_OVERLAY_POST_APPLY || action == OF_OVERLAY_POST_REMOVE)
		ovpop_kernel_device_forget(NULL);
	/* once per fragment: the first call waits for all the nodes */
	if (action != OF_OVERLAY_POST_REMOVE ||
	    READ_ONCE(ovpop_removal.task) != current)
		return NOTIFY_OK;
	ovpop_release_wait();
	ovpop_release_forget();
	return NOTIFY_OK;
}

static struct notifier_block ovpop_overlay_nb = {
	.notifier_call = ovpop_overlay_notify,
};

/**
 * ovpop_layer_remove() - removes an overlay the loader applied
 * @l: its layer, as recorded when it was applied; not changed
 * @ovcs_id: its changeset id, as for of_overlay_remove()
 *
 * Calls of_overlay_remove() and, before the core frees the changeset, waits
 * (at most OVPOP_RELEASE_WAIT_MS) for late releases of the overlay's nodes.
 * The caller holds ovpop_stack_lock.
 *
 * Return: of_overlay_remove()'s result; *@ovcs_id is 0 if it was removed.
 */
int ovpop_layer_remove(struct ovpop_layer *l, int *ovcs_id)
{
	u64 t0;
	int ret;

	lockdep_assert_held(&ovpop_stack_lock);
	ovpop_removal.layer = l;
	ovpop_removal.hint = 0;
	WRITE_ONCE(ovpop_removal.task, current);
	t0 = ktime_get_ns();
	ret = of_overlay_remove(ovcs_id);
	ovpop_stats_account(OVPOP_STAT_UNAPPLY, ktime_get_ns() - t0);
	WRITE_ONCE(ovpop_removal.task, NULL);
	ovpop_release_forget();	/* a failed removal notifies no POST_REMOVE */
	ovpop_removal.layer = NULL;
	return ret;
}

int ovpop_release_init(void)
{
	return of_overlay_notifier_register(&ovpop_overlay_nb);
}

void ovpop_release_exit(void)
{
	of_overlay_notifier_unregister(&ovpop_overlay_nb);
}
