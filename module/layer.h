/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A layer: the record of an overlay applied through configfs (layer.c),
 * kept in the stack (stack.c) and used by its removal (release.c).
 */
#ifndef _OVPOP_LAYER_H
#define _OVPOP_LAYER_H

#include <linux/list.h>
#include <linux/types.h>

struct device_node;

/**
 * struct ovpop_layer - an overlay applied through configfs, in the stack
 * @list: entry in the stack, oldest first; empty while not applied
 * @nodes: the nodes of its changeset entries, as notified: hash of the full
 *	   name, how many entries in a row were on that node (layer.c), and
 *	   whether it attached it (release.c counts the removal's
 *	   notifications with it)
 * @nnodes: number of @nodes
 * @size: number of @nodes allocated
 * @added: the nodes the overlay added or enabled (a device is due), in the
 *	   changeset's order, for the devices report; no references held:
 *	   valid only under ovpop_stack_lock while the overlay is applied
 * @nadded: number of @added
 * @added_size: number of @added allocated
 * @tops: the recorded nodes not below the previous top: hash, and index
 *	  in @parents of the parent's full name
 * @ntops: number of @tops
 * @tops_size: number of @tops allocated
 * @parents: full names of the tops' parents
 * @nparents: number of @parents
 * @parents_size: number of @parents allocated
 * @top: the node of the last top, while recording; compared, never
 *	 dereferenced
 * @last: the node of the last entry recorded; compared, never dereferenced
 * @all: the record is incomplete: treat it as covering every node
 * @pinned: its configfs item is pinned: a later layer covers it
 * @err: the first device-creation error of the apply being recorded, or 0
 * @err_node: full name of the node of @err, or NULL
 * @pre_first: OF_OVERLAY_PRE_APPLY notifications of the apply being
 *	       recorded that the first overlay notifier got
 * @pre_last: those that the last one got
 * @refused_by: the target of the last fragment the first notifier got,
 *		held; kept by ovpop_stack_record_end() only if a notifier
 *		refused that fragment, dropped by ovpop_layer_clear()
 * @applied: the apply being recorded applied the changeset's entries
 */
struct ovpop_layer {
	struct list_head list;
	struct ovpop_layer_node {
		u64 hash;
		unsigned int entries;
		bool attached;
	} *nodes;
	unsigned int nnodes, size;
	struct device_node **added;
	unsigned int nadded, added_size;
	struct ovpop_layer_top {
		u64 hash;
		unsigned int parent;
	} *tops;
	unsigned int ntops, tops_size;
	char **parents;
	unsigned int nparents, parents_size;
	const struct device_node *top;
	const struct device_node *last;
	bool all;
	bool pinned;
	unsigned int pre_first, pre_last;
	struct device_node *refused_by;
	bool applied;
	int err;
	char *err_node;
};

/* layer.c: a layer's record */
int ovpop_layer_add(struct ovpop_layer *l, struct device_node *np);
void ovpop_layer_add_end(struct ovpop_layer *l);
bool ovpop_layer_covers(const struct ovpop_layer *later,
			const struct ovpop_layer *l);
unsigned int ovpop_layer_entries(const struct ovpop_layer *l,
				 const struct device_node *np, unsigned int *hint);
bool ovpop_layer_first(const struct ovpop_layer *l,
		       const struct device_node *np);
size_t ovpop_layer_bytes(const struct ovpop_layer *l);
void ovpop_layer_clear(struct ovpop_layer *l);

#endif /* _OVPOP_LAYER_H */
