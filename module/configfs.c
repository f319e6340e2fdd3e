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
 *		ignored; reads back the applied blob
 *	status	"applied" or "unapplied"
 *	target	optional path of the node that the overlay's target-path
 *		properties are relative to (Linux 6.6 and later), written
 *		before the overlay
 *	error	the last error of the item: "<errno>: <message>", empty after
 *		a successful apply; the only place a dtbo error can be read
 *
 * rmdir removes the overlay. An apply whose devices cannot all be created is
 * removed again, so an overlay is either applied whole or not at all. The
 * rmdir of an overlay that the kernel cannot remove, because an overlay
 * applied after it covers its nodes, fails with EBUSY (stack.c).
 * Writes need CAP_SYS_ADMIN and are refused while the kernel is locked
 * down; blobs larger than the max_size parameter are refused.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/configfs.h>
#include <linux/firmware.h>
#include <linux/ktime.h>
#include <linux/libfdt.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "internal.h"

/* What configfs buffers for a dtbo write at most; max_size is checked below */
#define OVPOP_DTBO_LIMIT	SZ_16M

static unsigned int max_size = SZ_1M;
module_param(max_size, uint, 0644);
MODULE_PARM_DESC(max_size, "Largest overlay blob accepted, in bytes (default 1 MiB; dtbo writes stop at 16 MiB)");

/**
 * struct ovpop_item - one overlay directory
 * @item: the configfs item
 * @lock: protects @path, @target, @error, @dtbo, @dtbo_size and @ovcs_id
 * @path: the firmware name it was applied from, or NULL
 * @target: path of the target base node, or NULL
 * @error: the last error, or NULL
 * @dtbo: copy of the applied blob (from either attribute), or NULL
 * @dtbo_size: its size
 * @ovcs_id: the overlay changeset id while applied, 0 otherwise
 * @layer: its place in the stack of applied overlays (ovpop_stack_lock)
 * @parked: entry in ovpop_parked after a refused removal (ovpop_stack_lock)
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
	struct ovpop_layer layer;
	struct list_head parked;
};

/*
 * Overlays whose directory was removed although the kernel refused to remove
 * them: only if an overlay applied outside this loader covers them, since
 * the stack pins the others. They stay applied and are removed as soon as
 * that is allowed. Protected by ovpop_stack_lock.
 */
static LIST_HEAD(ovpop_parked);
static struct configfs_subsystem ovpop_subsys;

static struct ovpop_item *to_ovpop_item(struct config_item *item)
{
	return container_of(item, struct ovpop_item, item);
}

/*
 * Logs an error of the item and keeps it for the error attribute: returns
 * @err. Called with the item's lock held.
 */
static __printf(3, 4) int ovpop_fail(struct ovpop_item *it, int err,
				     const char *fmt, ...)
{
	va_list args;
	char *msg;

	lockdep_assert_held(&it->lock);
	va_start(args, fmt);
	msg = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	pr_err("%s: %s: %d\n", config_item_name(&it->item), msg ?: "error",
	       err);
	kfree(it->error);
	it->error = kasprintf(GFP_KERNEL, "%pe: %s", ERR_PTR(err),
			      msg ?: "error");
	kfree(msg);
	return err;
}

/* Checks the blob (blob.c) and returns its own size, or a negative errno */
static ssize_t ovpop_blob_size(struct ovpop_item *it, const void *blob,
			       size_t count)
{
	char msg[96];
	size_t size;
	int ret;

	if (count > max_size)
		return ovpop_fail(it, -EFBIG, "%zu bytes, more than max_size %u",
				  count, max_size);
	if (count < sizeof(struct fdt_header) || fdt_magic(blob) != FDT_MAGIC)
		return ovpop_fail(it, -EINVAL, "not a flattened device tree blob (%zu bytes)",
				  count);
	size = fdt_totalsize(blob);
	if (size < sizeof(struct fdt_header) || size > count)
		return ovpop_fail(it, -EINVAL, "header size %zu, but %zu bytes written",
				  size, count);
	ret = ovpop_blob_check(blob, size, msg, sizeof(msg));
	if (ret)
		return ovpop_fail(it, ret, "malformed blob: %s",
				  ret == -EINVAL ? msg : "out of memory");
	return size;
}

/* Pins an item (rmdir fails with EBUSY) or unpins it; see stack.c */
static int ovpop_item_pin(struct ovpop_layer *l, bool pinned)
{
	struct ovpop_item *it = container_of(l, struct ovpop_item, layer);

	if (!pinned) {
		configfs_undepend_item(&it->item);
		return 0;
	}
	/* Called from the callbacks of this subsystem only: the unlocked one */
	return configfs_depend_item_unlocked(&ovpop_subsys, &it->item);
}

/* Called with ovpop_stack_lock held */
static void ovpop_retry_parked(void)
{
	struct ovpop_item *it, *tmp;
	int ret;

	list_for_each_entry_safe_reverse(it, tmp, &ovpop_parked, parked) {
		ret = ovpop_layer_remove(&it->layer, &it->ovcs_id);
		if (ret)
			continue;
		pr_info("%s: removed (deferred)\n", config_item_name(&it->item));
		ovpop_layer_pop(&it->layer);
		list_del(&it->parked);
		config_item_put(&it->item);
	}
}

/* Called with ovpop_stack_lock held; returns the apply's error */
static int ovpop_apply_locked(struct ovpop_item *it, const void *blob,
			      size_t size, struct device_node *base)
{
	int ret, rm, id = 0;
	char msg[96];
	u64 t0;

	t0 = ktime_get_ns();
	ret = ovpop_precheck(blob, size, base, msg, sizeof(msg));
	ovpop_stats_account(OVPOP_STAT_PRECHECK, ktime_get_ns() - t0);
	if (ret)
		return ovpop_fail(it, ret, "cannot be applied: %s",
				  ret == -EINVAL ? msg : "out of memory");
	ovpop_layer_record(&it->layer);
	ret = ovpop_compat_overlay_apply(blob, size, &id, base);
	ovpop_layer_record_end(&it->layer);
	if (ret && id) {
		/*
		 * The kernel leaves a failed apply registered, partly applied;
		 * device-creation errors of the notifiers fail it the same way.
		 */
		rm = ovpop_layer_remove(&it->layer, &id);
		if (rm && rm != -ENODEV)
			pr_err("%s: cannot remove the failed apply: %d\n",
			       config_item_name(&it->item), rm);
	}
	if (ret) {
		if (it->layer.err)
			ovpop_fail(it, ret, "cannot create the device of %s; rolled back",
				   it->layer.err_node ?: "a node");
		else
			ovpop_fail(it, ret, "refused by the kernel (see the OF: lines of its log)");
		ovpop_layer_clear(&it->layer);
		return ret;
	}
	it->ovcs_id = id;
	ovpop_layer_push(&it->layer);
	ovpop_layers_update(ovpop_item_pin);
	return 0;
}

static int ovpop_apply(struct ovpop_item *it, const void *blob, size_t count)
{
	struct device_node *base = NULL;
	ssize_t size;
	int ret;

	size = ovpop_blob_size(it, blob, count);
	if (size < 0)
		return size;
	if (it->target) {
		base = of_find_node_by_path(it->target);
		if (!base)
			return ovpop_fail(it, -ENODEV, "target %s: no such node",
					  it->target);
	}

	mutex_lock(&ovpop_stack_lock);
	ret = ovpop_apply_locked(it, blob, size, base);
	mutex_unlock(&ovpop_stack_lock);
	of_node_put(base);
	if (ret)
		return ret;

	it->dtbo = kvmalloc(size, GFP_KERNEL);
	if (it->dtbo)
		memcpy(it->dtbo, blob, size);
	it->dtbo_size = it->dtbo ? size : 0;
	kfree(it->error);
	it->error = NULL;
	pr_info("%s: applied\n", config_item_name(&it->item));
	return 0;
}

static int ovpop_remove(struct ovpop_item *it)
{
	int ret;

	mutex_lock(&ovpop_stack_lock);
	ret = ovpop_layer_remove(&it->layer, &it->ovcs_id);
	if (!ret) {
		ovpop_layer_pop(&it->layer);
		ovpop_retry_parked();
		ovpop_layers_update(ovpop_item_pin);
	}
	mutex_unlock(&ovpop_stack_lock);
	return ret;
}

static int ovpop_check_write(struct ovpop_item *it)
{
	lockdep_assert_held(&it->lock);
	if (!capable(CAP_SYS_ADMIN))
		return ovpop_fail(it, -EPERM, "loading overlays needs CAP_SYS_ADMIN");
	if (security_locked_down(LOCKDOWN_DEVICE_TREE))
		return ovpop_fail(it, -EPERM, "the kernel is locked down");
	if (it->ovcs_id)
		return ovpop_fail(it, -EPERM, "already applied");
	return 0;
}

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

/* A firmware-relative name: no absolute path, no ".." component */
static bool ovpop_path_ok(const char *name)
{
	const char *p = name;

	if (!*name || *name == '/')
		return false;
	while ((p = strstr(p, ".."))) {
		if ((p == name || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return false;
		p += 2;
	}
	return true;
}

static int ovpop_apply_path(struct ovpop_item *it, const char *name)
{
	const struct firmware *fw;
	int ret;

	if (!ovpop_path_ok(name))
		return ovpop_fail(it, -EINVAL, "'%s': not a name under the firmware search path",
				  name);
	ret = firmware_request_nowarn(&fw, name, NULL);
	if (ret)
		return ovpop_fail(it, ret, "cannot load firmware '%s'", name);
	ret = ovpop_apply(it, fw->data, fw->size);
	release_firmware(fw);
	return ret;
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

static ssize_t ovpop_item_status_show(struct config_item *item, char *page)
{
	struct ovpop_item *it = to_ovpop_item(item);
	ssize_t len;

	mutex_lock(&it->lock);
	len = sysfs_emit(page, "%s\n", it->ovcs_id ? "applied" : "unapplied");
	mutex_unlock(&it->lock);
	return len;
}

static ssize_t ovpop_item_error_show(struct config_item *item, char *page)
{
	struct ovpop_item *it = to_ovpop_item(item);

	return ovpop_show_string(it, page, &it->error);
}

static ssize_t ovpop_item_dtbo_read(struct config_item *item, void *buf,
				    size_t max_count)
{
	struct ovpop_item *it = to_ovpop_item(item);
	ssize_t len;

	mutex_lock(&it->lock);
	len = it->dtbo_size;
	if (buf) {
		if (len > max_count)
			len = -ENOSPC;
		else if (len)
			memcpy(buf, it->dtbo, len);
	}
	mutex_unlock(&it->lock);
	return len;
}

/* Called by configfs when the writer closes the file; it drops the result */
static ssize_t ovpop_item_dtbo_write(struct config_item *item,
				     const void *buf, size_t count)
{
	struct ovpop_item *it = to_ovpop_item(item);
	int ret;

	mutex_lock(&it->lock);
	ret = ovpop_check_write(it);
	if (!ret)
		ret = ovpop_apply(it, buf, count);
	mutex_unlock(&it->lock);
	return ret ?: count;
}

CONFIGFS_ATTR(ovpop_item_, path);
CONFIGFS_ATTR_RO(ovpop_item_, status);
CONFIGFS_ATTR(ovpop_item_, target);
CONFIGFS_ATTR_RO(ovpop_item_, error);
CONFIGFS_BIN_ATTR(ovpop_item_, dtbo, NULL, OVPOP_DTBO_LIMIT);

static struct configfs_attribute *ovpop_item_attrs[] = {
	&ovpop_item_attr_path,
	&ovpop_item_attr_status,
	&ovpop_item_attr_target,
	&ovpop_item_attr_error,
	NULL,
};

static struct configfs_bin_attribute *ovpop_item_bin_attrs[] = {
	&ovpop_item_attr_dtbo,
	NULL,
};

static void ovpop_item_release(struct config_item *item)
{
	struct ovpop_item *it = to_ovpop_item(item);

	kfree(it->path);
	kfree(it->target);
	kfree(it->error);
	kvfree(it->dtbo);
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
	config_item_init_type_name(&it->item, name, &ovpop_item_type);
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

	if (ret) {
		/* configfs cannot refuse rmdir here: keep it applied */
		pr_err("%s: cannot remove: %d; it stays applied and is removed once the overlays applied after it are\n",
		       config_item_name(item), ret);
		mutex_lock(&ovpop_stack_lock);
		list_add_tail(&it->parked, &ovpop_parked);
		mutex_unlock(&ovpop_stack_lock);
		return;		/* the parked list keeps the reference */
	}
	config_item_put(item);
}

static OVPOP_CFS_CONST struct configfs_group_operations ovpop_overlays_ops = {
	.make_item = ovpop_overlays_make_item,
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

static struct configfs_subsystem ovpop_subsys = {
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

	config_group_init(&ovpop_subsys.su_group);
	config_group_init_type_name(&ovpop_overlays_group, "overlays",
				    &ovpop_overlays_type);
	configfs_add_default_group(&ovpop_overlays_group,
				   &ovpop_subsys.su_group);
	mutex_init(&ovpop_subsys.su_mutex);

	ret = configfs_register_subsystem(&ovpop_subsys);
	if (ret)
		pr_err("cannot register configfs device-tree/overlays (another loader?): %d\n",
		       ret);
	return ret;
}

void ovpop_configfs_exit(void)
{
	struct ovpop_item *it, *tmp;

	configfs_unregister_subsystem(&ovpop_subsys);

	/* Parked overlays: everything applied after them is gone by now */
	mutex_lock(&ovpop_stack_lock);
	ovpop_retry_parked();
	list_for_each_entry_safe(it, tmp, &ovpop_parked, parked) {
		pr_err("%s: still cannot remove; left applied\n",
		       config_item_name(&it->item));
		ovpop_layer_pop(&it->layer);
		list_del(&it->parked);
		config_item_put(&it->item);
	}
	mutex_unlock(&ovpop_stack_lock);
}
