/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ovpop internals shared between the populate core, device creation, the
 * reconfig notifier and the configfs loader.
 */
#ifndef _OVPOP_INTERNAL_H
#define _OVPOP_INTERNAL_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/of_platform.h>
#include <linux/types.h>

/**
 * struct ovpop_node - one device ovpop created for a device-tree node
 * @hash: entry in the node table, keyed by the device's of_node
 * @dev: the device; ovpop holds the registration's reference
 * @pdata: platform_data from auxdata (not ours to free), or NULL
 * @parent: record of the bus it was created under, or its population's top
 * @children: records created under this one, oldest first
 * @sibling: entry in @parent's @children
 *
 * A record is reachable (in the table and its parent's list) while its
 * device is live. Tearing down first makes a whole subtree unreachable under
 * ovpop_lock, then destroys it without the lock, so no one else holds a
 * pointer to a record being freed.
 */
struct ovpop_node {
	struct hlist_node hash;
	struct device *dev;
	void *pdata;
	struct ovpop_node *parent;
	struct list_head children;
	struct list_head sibling;
};

/**
 * struct ovpop_pop - a populated subtree, from one ovpop_populate() call
 * @top: parent of the records made for @root's children; @top.dev is the
 *	 parent device given to ovpop_populate() (a reference is held), or NULL
 * @root: the subtree's root node (a reference is held)
 * @matches: bus table; the caller keeps it valid until depopulate
 * @lookup: auxdata table or NULL; the caller keeps it valid likewise
 * @list: entry in the list of populations, empty once depopulated
 * @kref: held by the list and by each notification using the population
 * @root_was_bus: @root was already marked OF_POPULATED_BUS before us
 */
struct ovpop_pop {
	struct ovpop_node top;
	struct device_node *root;
	const struct of_device_id *matches;
	const struct of_dev_auxdata *lookup;
	struct list_head list;
	struct kref kref;
	bool root_was_bus;
};

/*
 * ovpop_lock protects the list of populations, the node table, every
 * record's @children/@sibling links and @parent, and the check-then-link of a
 * new record under a live parent. It is never held across device_add(),
 * device_del() or a driver's probe/remove, so drivers bound to ovpop's
 * devices may call ovpop_populate() from probe.
 * Lock order: a configfs item's lock -> ovpop_stack_lock -> the OF overlay
 * mutex (held by the OF core around reconfig notifications) -> ovpop_lock ->
 * devtree_lock. of_mutex is never taken under
 * ovpop_lock and is not held by the core while it notifies. Device locks
 * come before it: the bus notifier (ovpop_device_gone()) takes it under
 * the lock of a bus device being unbound, and ovpop takes no device lock
 * while it holds ovpop_lock.
 */
extern struct mutex ovpop_lock;

/* core.c */
int ovpop_core_init(void);
void ovpop_core_exit(void);
int ovpop_node_added(struct device_node *np);
bool ovpop_remove_node(struct device_node *np);
void ovpop_device_gone(struct device *dev);
void ovpop_depopulate_exit(struct device_node *root);
void ovpop_remove_below(struct device_node *np);
bool ovpop_in_population(struct device_node *np);
unsigned int ovpop_core_devices(size_t *bytes);
struct device *ovpop_node_device(const struct device_node *np);

/* device.c: the device of one node */
const struct of_dev_auxdata *
ovpop_auxdata(const struct of_dev_auxdata *lookup, struct device_node *np);
struct device *ovpop_device_create(struct device_node *np,
				   const struct of_dev_auxdata *aux,
				   struct device *parent);
void ovpop_device_destroy(struct device *dev, void *pdata);
struct device *ovpop_find_kernel_device(struct device_node *np);
void ovpop_kernel_device_forget(struct device_node *np);

/* stats.c: what is counted (see there) */
enum ovpop_stat {
	OVPOP_STAT_ADD,
	OVPOP_STAT_REGISTER,
	OVPOP_STAT_REMOVE,
	OVPOP_STAT_PRECHECK,
	OVPOP_STAT_APPLY,
	OVPOP_STAT_UNAPPLY,
	OVPOP_STAT_NR
};

struct seq_file;
void ovpop_stats_account(enum ovpop_stat stat, u64 ns);
void ovpop_stats_show(struct seq_file *m);

/*
 * ovpop_time_start() and ovpop_time_end() bracket a call that stats.c
 * counts. Only a module built for the benchmark (OVPOP_TIMING=y, which
 * scripts/bench.sh passes; Kbuild) reads the clock: the kernels users run
 * and those the benchmark measures mostly have no tracepoints
 * (CONFIG_TRACEPOINTS), and the benchmark must time the same kernel.
 */
#ifdef OVPOP_TIMING
#include <linux/timekeeping.h>

static inline bool ovpop_timed(void)
{
	return true;
}

static inline u64 ovpop_time_start(void)
{
	return ktime_get_ns();
}

static inline void ovpop_time_end(enum ovpop_stat stat, u64 t0)
{
	ovpop_stats_account(stat, ktime_get_ns() - t0);
}
#else
static inline bool ovpop_timed(void)
{
	return false;
}

static inline u64 ovpop_time_start(void)
{
	return 0;
}

static inline void ovpop_time_end(enum ovpop_stat stat, u64 t0)
{
	ovpop_stats_account(stat, 0);
}
#endif

/* notify.c */
int ovpop_notify_init(void);
void ovpop_notify_exit(void);

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
 *		held; kept by ovpop_layer_record_end() only if a notifier
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
int ovpop_grow(void **arr, unsigned int *size, unsigned int n, size_t elem);
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

/* stack.c: see there for ovpop_stack_lock and its order */
extern struct mutex ovpop_stack_lock;
int ovpop_stack_init(void);
void ovpop_stack_exit(void);
void ovpop_layer_record(struct ovpop_layer *l);
void ovpop_layer_record_end(struct ovpop_layer *l);
int ovpop_layer_applied(const struct ovpop_layer *l);
void ovpop_layer_note(struct device_node *np);
void ovpop_layer_note_error(struct device_node *np, int err);
void ovpop_layer_note_added(struct device_node *np);
void ovpop_layer_note_attached(struct device_node *np);
void ovpop_layer_push(struct ovpop_layer *l);
void ovpop_layer_pop(struct ovpop_layer *l);
void ovpop_layers_update(int (*pin)(struct ovpop_layer *l, bool pinned));
size_t ovpop_layers_bytes(void);

/* release.c: removing an overlay applied through configfs */
int ovpop_release_init(void);
void ovpop_release_exit(void);
int ovpop_layer_remove(struct ovpop_layer *l, int *ovcs_id);
int ovpop_release_filter(unsigned long action);
void ovpop_release_note(unsigned long action, struct device_node *np);
void ovpop_release_settle(void);

/* blob.c */
int ovpop_blob_check(const void *blob, size_t size, char *msg, size_t msg_len);

/* precheck.c */
int ovpop_precheck(const void *blob, size_t size, struct device_node *base,
		   char *msg, size_t msg_len);

/* configfs.c */
int ovpop_configfs_init(void);
void ovpop_configfs_exit(void);

#endif /* _OVPOP_INTERNAL_H */
