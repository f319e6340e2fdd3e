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
 * So while the loader removes an overlay, the nodes it detaches are noted as
 * the core notifies their detach (with the number of entries the apply
 * notified on each), and the remover waits, bounded, until each holds no
 * more than those entries' references. It waits at the removal's last
 * reconfig notification, after every notifier of the chain has handled it
 * (a notifier of the lowest priority, or ovpop's own when it ends the
 * chain): the core notifies without of_mutex (__of_changeset_revert_notify())
 * and of_overlay_remove() does not take the overlay mutex, so no DT
 * changes that need of_mutex wait for the remover, and a holder of the last
 * reference that needs of_mutex can let it go. (The reconfig chain's
 * rwsem is held for reading meanwhile: registering a reconfig notifier, and
 * notifications queued behind that, still wait.) Which notification is the
 * last is known from the layer's record: the core notifies every entry
 * again except the properties of the nodes the overlay attached, which are
 * detached by then (of_property_notify()), and the last is on the node of
 * the first entry. Nodes still held at OF_OVERLAY_POST_REMOVE (the last
 * notification did not reach ovpop, or other notifications in the
 * removing task made the count fail) are waited for there, under of_mutex,
 * as a last resort. (ovpop_release_filter() keeps POST_REMOVE from that
 * wait only in the removal of an apply that a notifier refused: the core
 * built no changeset then, so nothing was attached.)
 *
 * The pointers are valid without references of their own: the entries hold
 * the nodes until the changeset is freed, after POST_REMOVE. Nothing is
 * kept after it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/limits.h>
#include <linux/notifier.h>
#include <linux/of.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "internal.h"
#include "layer.h"

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
 * @seen counts the removal's reconfig notifications, @last is how many it
 * makes (0: unknown). @accepted is how many fragments, the first ones,
 * every overlay notifier accepted (all of them for an overlay the core
 * applied), @pre and @post count the removal's OF_OVERLAY_PRE_REMOVE and
 * OF_OVERLAY_POST_REMOVE notifications.
 */
static struct {
	struct task_struct *task;
	const struct ovpop_layer *layer;
	struct ovpop_detached *nodes;
	unsigned int n, size, hint;
	unsigned int seen, last;
	unsigned int accepted, pre, post;
} ovpop_removal;

/**
 * ovpop_release_note() - counts a notification of the removal in progress
 *			  and notes a node it detached
 * @action: the reconfig action
 * @np: the node of the notification
 *
 * Called by the reconfig notifier for every notification, before it acts
 * on it. Nodes of other changesets, existing nodes and nodes the layer did
 * not record are not waited for.
 */
void ovpop_release_note(unsigned long action, struct device_node *np)
{
	struct ovpop_detached *nodes;
	unsigned int entries;

	if (READ_ONCE(ovpop_removal.task) != current)
		return;
	/* the last one is on the first entry's node, or not the last */
	if (++ovpop_removal.seen == ovpop_removal.last &&
	    !ovpop_layer_first(ovpop_removal.layer, np))
		ovpop_removal.last = 0;
	if (action != OF_RECONFIG_DETACH_NODE ||
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

/**
 * ovpop_release_settle() - waits for the detached nodes at the removal's
 *			    last notification
 *
 * Called once every notifier has handled a notification: by the lowest
 * priority reconfig notifier, and by ovpop's own when it ends the chain.
 * Does nothing outside the removal's last notification.
 */
void ovpop_release_settle(void)
{
	if (READ_ONCE(ovpop_removal.task) != current || !ovpop_removal.last ||
	    ovpop_removal.seen != ovpop_removal.last)
		return;
	ovpop_release_wait();
	ovpop_release_forget();
}

static int ovpop_release_reconfig(struct notifier_block *nb,
				  unsigned long action, void *arg)
{
	ovpop_release_settle();
	return NOTIFY_OK;
}

static struct notifier_block ovpop_release_nb = {
	.notifier_call = ovpop_release_reconfig,
	.priority = INT_MIN,	/* after every other reconfig notifier */
};

static int ovpop_release_overlay_notify(struct notifier_block *nb,
					unsigned long action, void *arg)
{
	/* the apply or removal is over: pin no device of the kernel's */
	if (action == OF_OVERLAY_POST_APPLY || action == OF_OVERLAY_POST_REMOVE)
		ovpop_kernel_device_forget(NULL);
	/* once per fragment: the first call waits for what is left */
	if (action != OF_OVERLAY_POST_REMOVE ||
	    READ_ONCE(ovpop_removal.task) != current)
		return NOTIFY_OK;
	if (ovpop_removal.n)
		pr_debug("%u detached node(s) waited for under of_mutex\n",
			 ovpop_removal.n);
	ovpop_release_wait();
	ovpop_release_forget();
	return NOTIFY_OK;
}

static struct notifier_block ovpop_overlay_nb = {
	.notifier_call = ovpop_release_overlay_notify,
};

/**
 * ovpop_release_filter() - keeps a removal's notifications from the
 *			    notifiers of fragments that were not accepted
 * @action: the overlay notifier action
 *
 * Called by the first overlay notifier (priority INT_MAX). The core keeps
 * a changeset whose apply a notifier refused, and of_overlay_remove()
 * then notifies every fragment's removal (6.1-7.3: overlay_notify() for
 * OF_OVERLAY_PRE_REMOVE and OF_OVERLAY_POST_REMOVE, whatever the apply's
 * notify_state). A notifier would undo what it never did:
 * of-fpga-region's POST_REMOVE disables the region's bridges and forgets
 * its image, those of the overlay applied before on that region. The core
 * notifies the fragments in order, so the accepted ones are the first.
 * The refused fragment's removal is kept from every notifier, also from
 * those before the refuser that accepted it: one that keeps state from
 * PRE_APPLY of a fragment a later notifier refuses would not hear of its
 * removal (ovpop cannot tell them apart; of-fpga-region, which refuses,
 * undoes its own state before it does).
 *
 * Return: NOTIFY_STOP (ends the chain, no error) for a fragment of the
 * removal in progress that not every notifier accepted, else NOTIFY_OK.
 */
int ovpop_release_filter(unsigned long action)
{
	unsigned int *n;

	if (READ_ONCE(ovpop_removal.task) != current)
		return NOTIFY_OK;
	if (action == OF_OVERLAY_PRE_REMOVE)
		n = &ovpop_removal.pre;
	else if (action == OF_OVERLAY_POST_REMOVE)
		n = &ovpop_removal.post;
	else
		return NOTIFY_OK;
	if (++*n <= ovpop_removal.accepted)
		return NOTIFY_OK;
	/* what ovpop's own notifier does at the end of a removal */
	if (action == OF_OVERLAY_POST_REMOVE)
		ovpop_kernel_device_forget(NULL);
	return NOTIFY_STOP;
}

/* How many reconfig notifications removing @l makes, 0 if not known */
static unsigned int ovpop_release_count(const struct ovpop_layer *l)
{
	unsigned int i, n = 0;

	if (l->all)
		return 0;
	for (i = 0; i < l->nnodes; i++)
		n += l->nodes[i].attached ? 1 : l->nodes[i].entries;
	return n;
}

/**
 * ovpop_release_overlay() - removes an overlay the loader applied
 * @l: its layer, as recorded when it was applied; not changed
 * @ovcs_id: its changeset id, as for of_overlay_remove()
 *
 * Calls of_overlay_remove() and, before the core frees the changeset, waits
 * (at most OVPOP_RELEASE_WAIT_MS) for late releases of the overlay's nodes,
 * at the removal's last reconfig notification (see the top of this file).
 * The caller holds ovpop_stack_lock.
 *
 * Return: of_overlay_remove()'s result; *@ovcs_id is 0 if it was removed.
 */
int ovpop_release_overlay(struct ovpop_layer *l, int *ovcs_id)
{
	u64 t0;
	int ret;

	lockdep_assert_held(&ovpop_stack_lock);
	ovpop_removal.layer = l;
	ovpop_removal.hint = 0;
	ovpop_removal.seen = 0;
	ovpop_removal.last = ovpop_release_count(l);
	ovpop_removal.accepted = l->applied ? UINT_MAX : l->pre_last;
	ovpop_removal.pre = 0;
	ovpop_removal.post = 0;
	WRITE_ONCE(ovpop_removal.task, current);
	t0 = ovpop_time_start();
	ret = of_overlay_remove(ovcs_id);
	ovpop_time_end(OVPOP_STAT_UNAPPLY, t0);
	WRITE_ONCE(ovpop_removal.task, NULL);
	ovpop_release_forget();	/* a failed removal notifies no POST_REMOVE */
	ovpop_removal.layer = NULL;
	return ret;
}

int ovpop_release_init(void)
{
	int ret;

	ret = of_reconfig_notifier_register(&ovpop_release_nb);
	if (ret)
		return ret;
	ret = of_overlay_notifier_register(&ovpop_overlay_nb);
	if (ret)
		of_reconfig_notifier_unregister(&ovpop_release_nb);
	return ret;
}

void ovpop_release_exit(void)
{
	of_overlay_notifier_unregister(&ovpop_overlay_nb);
	of_reconfig_notifier_unregister(&ovpop_release_nb);
}
