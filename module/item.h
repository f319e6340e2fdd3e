/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One overlay directory of the configfs loader: shared by its attributes
 * (configfs.c), applying and removing its overlay (apply.c) and its devices
 * report (report.c).
 */
#ifndef _OVPOP_ITEM_H
#define _OVPOP_ITEM_H

#include <linux/configfs.h>
#include <linux/mutex.h>
#include <linux/sizes.h>

#include "internal.h"
#include "layer.h"

/**
 * struct ovpop_item - one overlay directory
 * @item: the configfs item
 * @lock: protects @path, @target, @error, @dtbo, @dtbo_size, @ovcs_id and
 *	  @report
 * @path: the firmware name it was applied from, or NULL
 * @target: path of the target base node, or NULL
 * @error: the last error, or NULL
 * @dtbo: copy of the applied blob (from either attribute), or of the stored
 *	  one in the dtbocfg dialect; NULL if none
 * @dtbo_size: its size
 * @ovcs_id: the overlay changeset id while applied, 0 otherwise; changed
 *	     under ovpop_stack_lock too (the devices report reads it under
 *	     that lock alone)
 * @report: the devices report made for the reader's first call, or NULL
 * @report_len: its length
 * @layer: its place in the stack of applied overlays (ovpop_stack_lock;
 *	   its record is written only by this item's apply, under @lock too)
 * @parked: entry in ovpop_parked after a refused removal (ovpop_stack_lock)
 * @dropped: its rmdir has begun: it can no longer be pinned
 *	     (ovpop_stack_lock)
 *
 * Lock order: configfs's subsystem mutex (held around drop_item) -> @lock
 * -> ovpop_stack_lock -> the OF overlay mutex -> ovpop_lock. The devices
 * report takes @lock only to cache, and ovpop_stack_lock without @lock.
 */
struct ovpop_item {
	struct config_item item;
	struct mutex lock;	/* see above; taken before ovpop_stack_lock */
	char *path;
	char *target;
	char *error;
	void *dtbo;
	size_t dtbo_size;
	int ovcs_id;
	char *report;
	size_t report_len;
	struct ovpop_layer layer;
	struct list_head parked;
	bool dropped;
};

/* The largest devices report (about 12000 devices) */
#define OVPOP_REPORT_LIMIT	SZ_1M

static inline struct ovpop_item *to_ovpop_item(struct config_item *item)
{
	return container_of(item, struct ovpop_item, item);
}

/* configfs.c */
extern struct configfs_subsystem ovpop_subsys;

/* apply.c: all but ovpop_park(), ovpop_parked_exit() need @it's lock */
__printf(3, 4) int ovpop_fail(struct ovpop_item *it, int err,
			      const char *fmt, ...);
int ovpop_check_write(struct ovpop_item *it);
int ovpop_apply(struct ovpop_item *it, const void *blob, size_t count);
int ovpop_apply_path(struct ovpop_item *it, const char *name);
int ovpop_store_blob(struct ovpop_item *it, const void *blob, size_t count);
int ovpop_remove(struct ovpop_item *it);
int ovpop_unapply(struct ovpop_item *it);
void ovpop_park(struct ovpop_item *it);
void ovpop_parked_exit(void);

/* report.c: called without @it's lock */
ssize_t ovpop_report_read(struct ovpop_item *it, void *buf, size_t size);

#endif /* _OVPOP_ITEM_H */
