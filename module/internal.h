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
struct device *ovpop_kernel_device(struct device_node *np);
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

struct ovpop_layer;	/* layer.h */

/* layer.c: a generic helper */
int ovpop_grow(void **arr, unsigned int *size, unsigned int n, size_t elem);

/* stack.c: see there for ovpop_stack_lock and its order */
extern struct mutex ovpop_stack_lock;
int ovpop_stack_init(void);
void ovpop_stack_exit(void);
void ovpop_stack_record(struct ovpop_layer *l);
void ovpop_stack_record_end(struct ovpop_layer *l);
int ovpop_stack_applied(const struct ovpop_layer *l);
void ovpop_stack_note(struct device_node *np);
void ovpop_stack_note_error(struct device_node *np, int err);
void ovpop_stack_note_added(struct device_node *np);
void ovpop_stack_note_attached(struct device_node *np);
void ovpop_stack_push(struct ovpop_layer *l);
void ovpop_stack_del(struct ovpop_layer *l);
void ovpop_stack_update(int (*pin)(struct ovpop_layer *l, bool pinned));
size_t ovpop_stack_bytes(void);

/* release.c: removing an overlay applied through configfs */
int ovpop_release_init(void);
void ovpop_release_exit(void);
int ovpop_release_overlay(struct ovpop_layer *l, int *ovcs_id);
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
