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
 * Paths are kept, not node references: an overlay's nodes must be free of
 * extra references when it is removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/of.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

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

static struct ovpop_layer *ovpop_recording(void)
{
	if (READ_ONCE(ovpop_recorder_task) != current)
		return NULL;
	return ovpop_recorder;
}

/**
 * ovpop_layer_record() - records the changeset entries of the caller's apply
 * @l: the layer of the overlay about to be applied, empty
 *
 * Until ovpop_layer_record_end(), reconfig notifications made in the
 * calling task are recorded in @l. The caller holds ovpop_stack_lock.
 */
void ovpop_layer_record(struct ovpop_layer *l)
{
	lockdep_assert_held(&ovpop_stack_lock);
	ovpop_recorder = l;
	WRITE_ONCE(ovpop_recorder_task, current);
}

/**
 * ovpop_layer_record_end() - stops recording
 * @l: the layer given to ovpop_layer_record()
 */
void ovpop_layer_record_end(struct ovpop_layer *l)
{
	lockdep_assert_held(&ovpop_stack_lock);
	WRITE_ONCE(ovpop_recorder_task, NULL);
	ovpop_recorder = NULL;
}

/**
 * ovpop_layer_note() - records a changeset entry of the recording apply
 * @np: the node of the entry
 *
 * Called by the reconfig notifier for every notification. A layer whose
 * record is incomplete (no memory) is treated as covering every node.
 */
void ovpop_layer_note(struct device_node *np)
{
	struct ovpop_layer *l = ovpop_recording();
	struct ovpop_layer_node *nodes;
	unsigned int size;
	char *path;

	if (!l || l->all)
		return;
	/* a new node's entries come in a row: the node, then its properties */
	if (l->nnodes && np == l->last) {
		l->nodes[l->nnodes - 1].entries++;
		return;
	}
	if (l->nnodes == l->size) {
		size = max(2 * l->size, 16U);
		nodes = krealloc_array(l->nodes, size, sizeof(*nodes), GFP_KERNEL);
		if (!nodes)
			goto incomplete;
		l->nodes = nodes;
		l->size = size;
	}
	path = kasprintf(GFP_KERNEL, "%pOF", np);
	if (!path)
		goto incomplete;
	l->last = np;
	l->nodes[l->nnodes].path = path;
	l->nodes[l->nnodes++].entries = 1;
	return;

incomplete:
	l->all = true;
}

/**
 * ovpop_layer_note_error() - records why the recording apply failed
 * @np: the node whose device could not be created
 * @err: the error
 *
 * The first error is kept: the loader reports it to the user.
 */
void ovpop_layer_note_error(struct device_node *np, int err)
{
	struct ovpop_layer *l = ovpop_recording();

	if (!l || l->err)
		return;
	l->err = err;
	l->err_node = kasprintf(GFP_KERNEL, "%pOF", np);
}

/* @anc is @path or one of its ancestors */
static bool ovpop_path_covers(const char *anc, const char *path)
{
	size_t n = strlen(anc);

	if (!strcmp(anc, "/"))
		return true;
	return !strncmp(anc, path, n) && (!path[n] || path[n] == '/');
}

/*
 * The core would refuse to remove @l while @later is applied. It compares
 * live nodes; full names compare the same, as both layers are applied.
 */
static bool ovpop_layer_covers(const struct ovpop_layer *later,
			       const struct ovpop_layer *l)
{
	unsigned int i, j;

	if (later->all || l->all)
		return true;
	for (i = 0; i < later->nnodes; i++)
		for (j = 0; j < l->nnodes; j++)
			if (ovpop_path_covers(later->nodes[i].path, l->nodes[j].path) ||
			    ovpop_path_covers(l->nodes[j].path, later->nodes[i].path))
				return true;
	return false;
}

/**
 * ovpop_layer_entries() - how many changeset entries a layer has on a node
 * @l: the layer
 * @path: the node's full name
 * @hint: where to start looking, updated; 0 at first. Removal notifies the
 *	  nodes in the reverse order of the apply, so looking backwards from
 *	  the last one found makes a whole removal linear.
 *
 * Return: the number of entries notified in a row for @path, or 0 if it is
 * not recorded (or the record is incomplete).
 */
unsigned int ovpop_layer_entries(const struct ovpop_layer *l, const char *path,
				 unsigned int *hint)
{
	unsigned int i, k;

	if (l->all || !l->nnodes)
		return 0;
	for (k = 0; k < l->nnodes; k++) {
		i = (*hint + l->nnodes - k) % l->nnodes;
		if (!strcmp(l->nodes[i].path, path)) {
			*hint = i;
			return l->nodes[i].entries;
		}
	}
	return 0;
}

static bool ovpop_layer_covered(const struct ovpop_layer *l)
{
	const struct ovpop_layer *later = l;

	list_for_each_entry_continue(later, &ovpop_layers, list)
		if (ovpop_layer_covers(later, l))
			return true;
	return false;
}

/**
 * ovpop_layers_update() - pins the layers that cannot be removed
 * @pin: sets whether a layer's configfs item can be removed; called only
 *	 for a change, returns 0 or an error (the layer is then left as it was)
 *
 * Called with ovpop_stack_lock held after every apply and removal.
 */
void ovpop_layers_update(int (*pin)(struct ovpop_layer *l, bool pinned))
{
	struct ovpop_layer *l;
	bool want;

	lockdep_assert_held(&ovpop_stack_lock);
	list_for_each_entry(l, &ovpop_layers, list) {
		want = ovpop_layer_covered(l);
		if (want != l->pinned && !pin(l, want))
			l->pinned = want;
	}
}

/**
 * ovpop_layers_bytes() - memory the records of the applied layers take
 *
 * Return: the bytes allocated for the node arrays and paths of the layers
 * in the stack (ksize(), so the allocator's rounding included).
 */
size_t ovpop_layers_bytes(void)
{
	const struct ovpop_layer *l;
	size_t bytes = 0;
	unsigned int i;

	mutex_lock(&ovpop_stack_lock);
	list_for_each_entry(l, &ovpop_layers, list) {
		bytes += l->nodes ? ksize(l->nodes) : 0;
		for (i = 0; i < l->nnodes; i++)
			bytes += ksize(l->nodes[i].path);
	}
	mutex_unlock(&ovpop_stack_lock);
	return bytes;
}

/**
 * ovpop_layer_push() - puts an applied overlay on top of the stack
 * @l: its layer, as recorded
 */
void ovpop_layer_push(struct ovpop_layer *l)
{
	lockdep_assert_held(&ovpop_stack_lock);
	list_add_tail(&l->list, &ovpop_layers);
}

/**
 * ovpop_layer_pop() - takes a removed overlay out of the stack
 * @l: its layer; unpinned by the caller's next ovpop_layers_update()
 *
 * The record is freed: @l can record again.
 */
void ovpop_layer_pop(struct ovpop_layer *l)
{
	lockdep_assert_held(&ovpop_stack_lock);
	list_del_init(&l->list);
	ovpop_layer_clear(l);
}

/**
 * ovpop_layer_clear() - frees what a layer recorded
 * @l: a layer not in the stack
 */
void ovpop_layer_clear(struct ovpop_layer *l)
{
	while (l->nnodes)
		kfree(l->nodes[--l->nnodes].path);
	kfree(l->nodes);
	l->nodes = NULL;
	l->size = 0;
	l->last = NULL;
	l->all = false;
	kfree(l->err_node);
	l->err_node = NULL;
	l->err = 0;
}
