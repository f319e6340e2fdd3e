// SPDX-License-Identifier: GPL-2.0
/*
 * The stack of overlays applied through configfs, so that the loader can
 * refuse an rmdir that the kernel would refuse.
 *
 * The OF core removes an overlay only if no overlay applied after it has a
 * changeset entry on one of its entries' nodes, or on an ancestor or a
 * descendant of one (overlay_removal_is_ok() in drivers/of/overlay.c). configfs cannot fail an
 * rmdir from its drop callback, only refuse it beforehand, for an item
 * something depends on. So while an overlay is applied, the nodes of its
 * changeset entries are recorded from the reconfig notifications (one per
 * entry), and after every apply and removal each layer that a later layer
 * covers by the core's rule is pinned (configfs_depend_item_unlocked()).
 * layer.c says what a layer keeps of its nodes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/limits.h>
#include <linux/list.h>
#include <linux/notifier.h>
#include <linux/of.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"
#include "layer.h"

/*
 * ovpop_stack_lock serialises every apply and removal made through configfs
 * and protects ovpop_layers and the layers' fields. Lock order: a configfs
 * item's lock -> ovpop_stack_lock -> the OF overlay mutex -> ovpop_lock.
 */
DEFINE_MUTEX(ovpop_stack_lock);
static LIST_HEAD(ovpop_layers);

/*
 * The layer recording the notifications of the apply that ovpop_recorder_task
 * is making. Both are set and cleared under ovpop_stack_lock by that task;
 * the notifier only uses the layer in that task (the notifications of an
 * apply come from the applying task), so it needs no lock of its own.
 */
static struct ovpop_layer *ovpop_recorder;
static struct task_struct *ovpop_recorder_task;

static struct ovpop_layer *ovpop_stack_recording(void)
{
	if (READ_ONCE(ovpop_recorder_task) != current)
		return NULL;
	return ovpop_recorder;
}

/**
 * ovpop_stack_record() - records the changeset entries of the caller's apply
 * @l: the layer of the overlay about to be applied, empty
 *
 * Until ovpop_stack_record_end(), reconfig notifications made in the
 * calling task are recorded in @l. The caller holds ovpop_stack_lock.
 */
void ovpop_stack_record(struct ovpop_layer *l)
{
	lockdep_assert_held(&ovpop_stack_lock);
	l->pre_first = 0;
	l->pre_last = 0;
	of_node_put(l->refused_by);
	l->refused_by = NULL;
	l->applied = false;
	ovpop_recorder = l;
	WRITE_ONCE(ovpop_recorder_task, current);
}

/**
 * ovpop_stack_record_end() - stops recording
 * @l: the layer given to ovpop_stack_record()
 *
 * If an overlay notifier refused a fragment of the apply, @l->refused_by
 * keeps a reference to that fragment's target (ovpop_layer_clear() drops
 * it); otherwise it is NULL.
 */
void ovpop_stack_record_end(struct ovpop_layer *l)
{
	lockdep_assert_held(&ovpop_stack_lock);
	WRITE_ONCE(ovpop_recorder_task, NULL);
	ovpop_recorder = NULL;
	ovpop_layer_add_end(l);
	if (l->pre_first > l->pre_last && !l->applied)
		return;
	of_node_put(l->refused_by);
	l->refused_by = NULL;
}

/*
 * The first notifier also keeps the removal notifications of fragments that
 * were not accepted from the others (ovpop_release_filter()).
 *
 * How far the core got with the recording apply (of_overlay_apply() in
 * 6.1-7.3). It notifies OF_OVERLAY_PRE_APPLY once per fragment and stops
 * at the first notifier that fails one; it builds the changeset only if
 * every notifier accepted every fragment, that is if the last notifier got
 * as many as the first. It notifies OF_OVERLAY_POST_APPLY, which the first
 * notifier gets whatever the others answer, once the entries are applied,
 * also when a reconfig notifier failed. A reconfig notification the
 * recorder saw also shows that the entries are applied.
 */
static int ovpop_stack_overlay_notify(struct notifier_block *nb,
				      unsigned long action, void *arg)
{
	struct ovpop_layer *l = ovpop_stack_recording();

	if (nb->priority == INT_MAX && (action == OF_OVERLAY_PRE_REMOVE ||
					action == OF_OVERLAY_POST_REMOVE))
		return ovpop_release_filter(action);
	if (!l)
		return NOTIFY_OK;
	if (action == OF_OVERLAY_PRE_APPLY && nb->priority == INT_MAX) {
		struct of_overlay_notify_data *nd = arg;

		l->pre_first++;
		of_node_put(l->refused_by);
		l->refused_by = of_node_get(nd->target);
	}
	if (action == OF_OVERLAY_PRE_APPLY && nb->priority == INT_MIN)
		l->pre_last++;
	if (action == OF_OVERLAY_POST_APPLY)
		l->applied = true;
	return NOTIFY_OK;
}

static struct notifier_block ovpop_stack_first_nb = {
	.notifier_call = ovpop_stack_overlay_notify,
	/* before the others (one of equal priority registered earlier runs first) */
	.priority = INT_MAX,
};

static struct notifier_block ovpop_stack_last_nb = {
	.notifier_call = ovpop_stack_overlay_notify,
	.priority = INT_MIN,	/* after every notifier accepted it */
};

/**
 * ovpop_stack_applied() - did the core apply the recorded overlay's entries?
 * @l: a layer after ovpop_stack_record_end()
 *
 * Return: 1 if it applied them (of_overlay_remove() can revert them), 0 if
 * it did not build the changeset (there is nothing to revert), -EBUSY if
 * it built the changeset, or part of it, and applied no entry: reverting
 * it would remove properties and detach nodes that were never there
 * ("Error reverting changeset", then re-attaching the nodes it "reverted"
 * oopses in __of_attach_node_sysfs()).
 */
int ovpop_stack_applied(const struct ovpop_layer *l)
{
	if (l->applied || l->nnodes || l->all)
		return 1;
	return l->pre_last && l->pre_last == l->pre_first ? -EBUSY : 0;
}

/**
 * ovpop_stack_note() - records a changeset entry of the recording apply
 * @np: the node of the entry
 *
 * Called by the reconfig notifier for every notification. A layer whose
 * record is incomplete (no memory) is treated as covering every node.
 */
void ovpop_stack_note(struct device_node *np)
{
	struct ovpop_layer *l = ovpop_stack_recording();

	if (!l || l->all)
		return;
	/* a new node's entries come in a row: the node, then its properties */
	if (l->nnodes && np == l->last)
		l->nodes[l->nnodes - 1].entries++;
	else if (ovpop_layer_add(l, np))
		l->all = true;
}

/**
 * ovpop_stack_note_error() - records why the recording apply failed
 * @np: the node whose device could not be created
 * @err: the error
 *
 * The first error is kept: the loader reports it to the user.
 */
void ovpop_stack_note_error(struct device_node *np, int err)
{
	struct ovpop_layer *l = ovpop_stack_recording();

	if (!l || l->err)
		return;
	l->err = err;
	l->err_node = kasprintf(GFP_KERNEL, "%pOF", np);
}

/**
 * ovpop_stack_note_added() - records that the last entry noted added or
 *			      enabled its node
 * @np: the node, as given to the ovpop_stack_note() just before
 *
 * Called by the reconfig notifier for a node that is due a device; the
 * devices report (report.c) lists the devices of these nodes. Only nodes
 * that live as long as the overlay are kept: its own (OF_OVERLAY) and the
 * base tree's. A node that a driver's changeset makes while the apply
 * probes (OF_DYNAMIC only: PCI's of_pci_make_dev_node(), for one) can go
 * while the overlay stays, and is not listed.
 */
void ovpop_stack_note_added(struct device_node *np)
{
	struct ovpop_layer *l = ovpop_stack_recording();

	if (!l || l->all || !l->nnodes || np != l->last)
		return;
	if (!of_node_check_flag(np, OF_OVERLAY) &&
	    of_node_check_flag(np, OF_DYNAMIC))
		return;
	if (ovpop_grow((void **)&l->added, &l->added_size, l->nadded,
		       sizeof(*l->added)))
		l->all = true;
	else
		l->added[l->nadded++] = np;
}

/**
 * ovpop_stack_note_attached() - records that the last entry noted attached
 *				 its node
 * @np: the node, as given to the ovpop_stack_note() just before
 *
 * Called by the reconfig notifier for an attach: when the overlay is
 * removed, such a node notifies its detach only (release.c).
 */
void ovpop_stack_note_attached(struct device_node *np)
{
	struct ovpop_layer *l = ovpop_stack_recording();

	if (l && !l->all && l->nnodes && np == l->last)
		l->nodes[l->nnodes - 1].attached = true;
}

static bool ovpop_stack_covered(const struct ovpop_layer *l)
{
	const struct ovpop_layer *later = l;

	list_for_each_entry_continue(later, &ovpop_layers, list)
		if (ovpop_layer_covers(later, l))
			return true;
	return false;
}

/**
 * ovpop_stack_update() - pins the layers that cannot be removed
 * @pin: sets whether a layer's configfs item can be removed; called only
 *	 for a change, returns 0 or an error (the layer is then left as it was)
 *
 * Called with ovpop_stack_lock held after every apply and removal.
 */
void ovpop_stack_update(int (*pin)(struct ovpop_layer *l, bool pinned))
{
	struct ovpop_layer *l;
	bool want;

	lockdep_assert_held(&ovpop_stack_lock);
	list_for_each_entry(l, &ovpop_layers, list) {
		want = ovpop_stack_covered(l);
		if (want != l->pinned && !pin(l, want))
			l->pinned = want;
	}
}

int ovpop_stack_init(void)
{
	int ret;

	ret = of_overlay_notifier_register(&ovpop_stack_first_nb);
	if (ret)
		return ret;
	ret = of_overlay_notifier_register(&ovpop_stack_last_nb);
	if (ret)
		of_overlay_notifier_unregister(&ovpop_stack_first_nb);
	return ret;
}

void ovpop_stack_exit(void)
{
	of_overlay_notifier_unregister(&ovpop_stack_last_nb);
	of_overlay_notifier_unregister(&ovpop_stack_first_nb);
}

/**
 * ovpop_stack_bytes() - memory the records of the applied layers take
 *
 * Return: the bytes allocated for the node arrays and paths of the layers
 * in the stack (ksize(), so the allocator's rounding included).
 */
size_t ovpop_stack_bytes(void)
{
	const struct ovpop_layer *l;
	size_t bytes = 0;

	mutex_lock(&ovpop_stack_lock);
	list_for_each_entry(l, &ovpop_layers, list)
		bytes += ovpop_layer_bytes(l);
	mutex_unlock(&ovpop_stack_lock);
	return bytes;
}

/**
 * ovpop_stack_push() - puts an applied overlay on top of the stack
 * @l: its layer, as recorded
 */
void ovpop_stack_push(struct ovpop_layer *l)
{
	lockdep_assert_held(&ovpop_stack_lock);
	list_add_tail(&l->list, &ovpop_layers);
}

/**
 * ovpop_stack_del() - takes a removed overlay out of the stack
 * @l: its layer; unpinned by the caller's next ovpop_stack_update()
 *
 * The record is freed: @l can record again.
 */
void ovpop_stack_del(struct ovpop_layer *l)
{
	lockdep_assert_held(&ovpop_stack_lock);
	list_del_init(&l->list);
	ovpop_layer_clear(l);
}
