// SPDX-License-Identifier: GPL-2.0
/*
 * The overlay loader in configfs, compatible with the interface the RPi,
 * Xilinx and Altera kernels carry:
 *
 *   /sys/kernel/config/device-tree/overlays/<name>/
 *	path	write a file name under the firmware search path: loaded with
 *		the firmware loader and applied; the write fails with the
 *		errno, and reads back the name once applied, empty otherwise
 *	dtbo	binary overlay, applied when the writer closes the file (before
 *		close() returns); trailing bytes after fdt_totalsize() are
 *		ignored; reads back the applied blob (EAGAIN if it changed size
 *		during the read: read again)
 *	status	"applied" or "unapplied" (read-only)
 *	target	optional path of the node that the overlay's target-path
 *		properties are relative to (Linux 6.6 and later), written
 *		before the overlay
 *	error	the last error of the item: "<errno>: <message>", empty after
 *		a successful apply; the only place a dtbo error can be read
 *	devices	the devices the overlay made, a line each (report.c)
 *
 * With dialect=dtbocfg, for scripts written for the dtbocfg module: status
 * reads "0" or "1", writing 1 applies the stored blob and 0 removes the
 * overlay (the directory stays); a dtbo write only stores the blob.
 *
 * If another loader (the RPi and Xilinx kernels' CONFIG_OF_CONFIGFS) has
 * device-tree in configfs, ovpop loads without this one: its notifier still
 * creates the right devices for the overlays that loader applies.
 *
 * rmdir removes the overlay. An apply whose devices cannot all be created is
 * removed again, so an overlay is either applied whole or not at all. The
 * rmdir of an overlay that the kernel cannot remove, because an overlay
 * applied after it covers its nodes, fails with EBUSY (stack.c).
 * Writes need CAP_SYS_ADMIN and are refused while the kernel is locked
 * down; a dtbo is refused if a kernel thread closes it; blobs larger than
 * the max_size parameter are refused.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "item.h"

/* What configfs buffers for a dtbo write at most; max_size is checked later */
#define OVPOP_DTBO_LIMIT	SZ_16M

static char *dialect = "ovpop";
module_param(dialect, charp, 0444);
MODULE_PARM_DESC(dialect, "Attributes as ovpop (default) or as dtbocfg: status 0/1, dtbo only stores");

/* dialect=dtbocfg; set at init, before the subsystem is registered */
static bool ovpop_dtbocfg;
/* Set at init: false if another loader has device-tree in configfs */
static bool ovpop_cfs_registered;

/* A copy of a written value without surrounding white space (echo's \n) */
static char *ovpop_strdup_trim(const char *page, size_t count)
{
	char *buf, *s;

	buf = kstrndup(page, count, GFP_KERNEL);
	if (!buf)
		return NULL;
	s = strim(buf);
	memmove(buf, s, strlen(s) + 1);
	return buf;
}

/* Shows a string attribute of the item, "" for none */
static ssize_t ovpop_show_string(struct ovpop_item *it, char *page,
				 char **field)
{
	ssize_t len;

	mutex_lock(&it->lock);
	len = sysfs_emit(page, "%s\n", *field ?: "");
	mutex_unlock(&it->lock);
	return len;
}

/*
 * Stores a written string attribute: trimmed, on an unapplied item, after
 * @act accepted it (and did what it does); "" stores none.
 */
static ssize_t ovpop_store_string(struct ovpop_item *it, const char *page,
				  size_t count, char **field,
				  int (*act)(struct ovpop_item *, const char *))
{
	char *value;
	int ret;

	value = ovpop_strdup_trim(page, count);
	if (!value)
		return -ENOMEM;

	mutex_lock(&it->lock);
	ret = ovpop_check_write(it);
	if (!ret)
		ret = act(it, value);
	if (!ret) {
		swap(*field, value);
		if (!**field) {
			kfree(*field);
			*field = NULL;
		}
	}
	mutex_unlock(&it->lock);

	kfree(value);
	return ret ?: count;
}

static ssize_t ovpop_item_path_show(struct config_item *item, char *page)
{
	struct ovpop_item *it = to_ovpop_item(item);

	return ovpop_show_string(it, page, &it->path);
}

static ssize_t ovpop_item_path_store(struct config_item *item,
				     const char *page, size_t count)
{
	struct ovpop_item *it = to_ovpop_item(item);

	return ovpop_store_string(it, page, count, &it->path,
				  ovpop_apply_path);
}

static ssize_t ovpop_item_target_show(struct config_item *item, char *page)
{
	struct ovpop_item *it = to_ovpop_item(item);

	return ovpop_show_string(it, page, &it->target);
}

/* Checks a target path; "" clears it */
static int ovpop_target_ok(struct ovpop_item *it, const char *target)
{
	struct device_node *np;

	if (!*target)
		return 0;
	if (!OVPOP_HAVE_TARGET_BASE)
		return ovpop_fail(it, -EOPNOTSUPP, "a target base needs Linux 6.6 or later");
	np = *target == '/' ? of_find_node_by_path(target) : NULL;
	if (!np)
		return ovpop_fail(it, -ENODEV, "target %s: no such node", target);
	of_node_put(np);
	return 0;
}

static ssize_t ovpop_item_target_store(struct config_item *item,
				       const char *page, size_t count)
{
	struct ovpop_item *it = to_ovpop_item(item);

	return ovpop_store_string(it, page, count, &it->target,
				  ovpop_target_ok);
}

/* "applied"/"unapplied", or dtbocfg's "1"/"0" */
static ssize_t ovpop_item_status_show(struct config_item *item, char *page)
{
	struct ovpop_item *it = to_ovpop_item(item);
	bool applied;

	mutex_lock(&it->lock);
	applied = it->ovcs_id;
	mutex_unlock(&it->lock);
	if (ovpop_dtbocfg)
		return sysfs_emit(page, "%d\n", applied);
	return sysfs_emit(page, "%s\n", applied ? "applied" : "unapplied");
}

static ssize_t ovpop_dtbocfg_status_show(struct config_item *item,
					 char *page)
{
	return ovpop_item_status_show(item, page);
}

static int ovpop_dtbocfg_apply(struct ovpop_item *it)
{
	int ret = ovpop_check_write(it);

	if (ret)
		return ret;
	if (!it->dtbo)
		return ovpop_fail(it, -ENOENT, "no blob stored: write dtbo first");
	return ovpop_apply(it, it->dtbo, it->dtbo_size);
}

/* dtbocfg: 0 removes the overlay, any other number applies the stored blob */
static ssize_t ovpop_dtbocfg_status_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct ovpop_item *it = to_ovpop_item(item);
	unsigned long value;
	int ret;

	ret = kstrtoul(page, 10, &value);
	if (ret)
		return ret;
	mutex_lock(&it->lock);
	if (!value)
		ret = ovpop_unapply(it);
	else if (!it->ovcs_id)
		ret = ovpop_dtbocfg_apply(it);
	mutex_unlock(&it->lock);
	return ret ?: count;
}

static ssize_t ovpop_item_error_show(struct config_item *item, char *page)
{
	struct ovpop_item *it = to_ovpop_item(item);

	return ovpop_show_string(it, page, &it->error);
}

/*
 * configfs reads a binary attribute in two calls (fs/configfs/file.c,
 * configfs_bin_read_iter()): the first, without a buffer, for the size; the
 * second fills a vmalloc()ed buffer of that size, not zeroed, all of which
 * goes to the reader whatever the call returns. A blob stored, applied or
 * removed in between can have another size: then nothing is copied and the
 * read fails with -EAGAIN. configfs frees its buffer on an error and starts
 * over at the next read() of the same file, so the reader can retry; a
 * blob padded or cut to the first size would not be a blob.
 */
static ssize_t ovpop_item_dtbo_read(struct config_item *item, void *buf,
				    size_t max_count)
{
	struct ovpop_item *it = to_ovpop_item(item);
	ssize_t len;

	mutex_lock(&it->lock);
	len = it->dtbo_size;
	if (buf) {
		if (len != max_count)
			len = -EAGAIN;
		else if (len)
			memcpy(buf, it->dtbo, len);
	}
	mutex_unlock(&it->lock);
	return len;
}

/*
 * configfs calls the write at the file's last close (fs/configfs/file.c,
 * configfs_release_bin_file(), 6.1 to 7.3), in the task that drops the
 * last reference. The callback gets the item and the bytes, neither the
 * file nor configfs's buffer, and no callback runs at open() or write(),
 * so the opener's credentials (file->f_cred) cannot be checked, only the
 * closer's (capable() in apply.c). The closer is a kernel thread when the
 * file outlives its opener's descriptors in a kernel object (an io_uring's
 * registered files, freed by a workqueue; a unix socket's queue, freed by
 * its garbage collector, a workqueue in 6.12): fput() then defers to a
 * workqueue too. A kernel thread's credentials are the kernel's, which
 * pass every capability check, so it is refused. A descriptor passed to
 * another process that closes it last is checked against that process.
 * Opening dtbo for writing needs uid 0 or CAP_DAC_OVERRIDE (mode 0644,
 * owned by root).
 */
static int ovpop_check_closer(struct ovpop_item *it)
{
	if (current->flags & PF_KTHREAD)
		return ovpop_fail(it, -EPERM,
				  "closed by a kernel thread (%s), whose credentials are not the writer's: close dtbo in the writing process",
				  current->comm);
	return 0;
}

/* Called by configfs when the writer closes the file; it drops the result */
static ssize_t ovpop_item_dtbo_write(struct config_item *item,
				     const void *buf, size_t count)
{
	struct ovpop_item *it = to_ovpop_item(item);
	int ret;

	mutex_lock(&it->lock);
	ret = ovpop_check_closer(it);
	if (ret)
		goto out;
	if (ovpop_dtbocfg) {
		ret = ovpop_store_blob(it, buf, count);
	} else {
		ret = ovpop_check_write(it);
		if (!ret)
			ret = ovpop_apply(it, buf, count);
	}
out:
	mutex_unlock(&it->lock);
	return ret ?: count;
}

static ssize_t ovpop_item_devices_read(struct config_item *item, void *buf,
				       size_t max_count)
{
	return ovpop_report_read(to_ovpop_item(item), buf, max_count);
}

CONFIGFS_ATTR(ovpop_item_, path);
CONFIGFS_ATTR_RO(ovpop_item_, status);
CONFIGFS_ATTR(ovpop_item_, target);
CONFIGFS_ATTR_RO(ovpop_item_, error);
CONFIGFS_ATTR(ovpop_dtbocfg_, status);
CONFIGFS_BIN_ATTR(ovpop_item_, dtbo, NULL, OVPOP_DTBO_LIMIT);
CONFIGFS_BIN_ATTR_RO(ovpop_item_, devices, NULL, OVPOP_REPORT_LIMIT);

static struct configfs_attribute *ovpop_item_attrs[] = {
	&ovpop_item_attr_path,
	&ovpop_item_attr_status,
	&ovpop_item_attr_target,
	&ovpop_item_attr_error,
	NULL,
};

/* The same, with dtbocfg's status */
static struct configfs_attribute *ovpop_dtbocfg_attrs[] = {
	&ovpop_item_attr_path,
	&ovpop_dtbocfg_attr_status,
	&ovpop_item_attr_target,
	&ovpop_item_attr_error,
	NULL,
};

static struct configfs_bin_attribute *ovpop_item_bin_attrs[] = {
	&ovpop_item_attr_dtbo,
	&ovpop_item_attr_devices,
	NULL,
};

static void ovpop_item_release(struct config_item *item)
{
	struct ovpop_item *it = to_ovpop_item(item);

	kfree(it->path);
	kfree(it->target);
	kfree(it->error);
	kvfree(it->dtbo);
	kvfree(it->report);
	mutex_destroy(&it->lock);
	kfree(it);
}

static OVPOP_CFS_CONST struct configfs_item_operations ovpop_item_ops = {
	.release = ovpop_item_release,
};

static const struct config_item_type ovpop_item_type = {
	.ct_item_ops = &ovpop_item_ops,
	.ct_attrs = ovpop_item_attrs,
	.ct_bin_attrs = ovpop_item_bin_attrs,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type ovpop_dtbocfg_item_type = {
	.ct_item_ops = &ovpop_item_ops,
	.ct_attrs = ovpop_dtbocfg_attrs,
	.ct_bin_attrs = ovpop_item_bin_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_item *ovpop_overlays_make_item(struct config_group *group,
						    const char *name)
{
	struct ovpop_item *it;

	it = kzalloc(sizeof(*it), GFP_KERNEL);
	if (!it)
		return ERR_PTR(-ENOMEM);
	mutex_init(&it->lock);
	INIT_LIST_HEAD(&it->layer.list);
	INIT_LIST_HEAD(&it->parked);
	config_item_init_type_name(&it->item, name, ovpop_dtbocfg ?
				   &ovpop_dtbocfg_item_type : &ovpop_item_type);
	return &it->item;
}

static void ovpop_overlays_drop_item(struct config_group *group,
				     struct config_item *item)
{
	struct ovpop_item *it = to_ovpop_item(item);
	int ret = 0;

	mutex_lock(&it->lock);
	if (it->ovcs_id)
		ret = ovpop_remove(it);
	mutex_unlock(&it->lock);

	if (ret)	/* configfs cannot refuse rmdir here: keep it applied */
		ovpop_park(it);
	else
		config_item_put(item);
}

/*
 * Called by rmdir before configfs unlinks the item (which clears its
 * ci_group, what configfs_depend_item_unlocked() follows): from here on no
 * apply may pin it.
 */
static void ovpop_overlays_disconnect(struct config_group *group,
				      struct config_item *item)
{
	struct ovpop_item *it = to_ovpop_item(item);

	mutex_lock(&ovpop_stack_lock);
	it->dropped = true;
	mutex_unlock(&ovpop_stack_lock);
}

static OVPOP_CFS_CONST struct configfs_group_operations ovpop_overlays_ops = {
	.make_item = ovpop_overlays_make_item,
	.disconnect_notify = ovpop_overlays_disconnect,
	.drop_item = ovpop_overlays_drop_item,
};

static const struct config_item_type ovpop_overlays_type = {
	.ct_group_ops = &ovpop_overlays_ops,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type ovpop_dt_type = {
	.ct_owner = THIS_MODULE,
};

static struct config_group ovpop_overlays_group;

struct configfs_subsystem ovpop_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "device-tree",
			.ci_type = &ovpop_dt_type,
		},
	},
};

int ovpop_configfs_init(void)
{
	int ret;

	if (!strcmp(dialect, "dtbocfg")) {
		ovpop_dtbocfg = true;
	} else if (strcmp(dialect, "ovpop")) {
		pr_err("dialect=%s: must be ovpop or dtbocfg\n", dialect);
		return -EINVAL;
	}
	config_group_init(&ovpop_subsys.su_group);
	config_group_init_type_name(&ovpop_overlays_group, "overlays",
				    &ovpop_overlays_type);
	configfs_add_default_group(&ovpop_overlays_group,
				   &ovpop_subsys.su_group);
	mutex_init(&ovpop_subsys.su_mutex);

	ret = configfs_register_subsystem(&ovpop_subsys);
	if (ret == -EEXIST) {
		/* populating the loader's overlays is still worth having */
		pr_info("configfs device-tree is another loader's (CONFIG_OF_CONFIGFS?): ovpop creates the devices of the overlays it applies and has no loader of its own\n");
		return 0;
	}
	if (ret) {
		pr_err("cannot register configfs device-tree/overlays: %d\n", ret);
		return ret;
	}
	ovpop_cfs_registered = true;
	return 0;
}

void ovpop_configfs_exit(void)
{
	if (!ovpop_cfs_registered)
		return;
	configfs_unregister_subsystem(&ovpop_subsys);
	ovpop_parked_exit();
}
