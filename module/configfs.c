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
 *
 * rmdir removes the overlay. An apply whose devices cannot all be created is
 * removed again, so an overlay is either applied whole or not at all.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/configfs.h>
#include <linux/firmware.h>
#include <linux/libfdt.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "internal.h"

#define OVPOP_DTBO_MAX	SZ_1M

/**
 * struct ovpop_item - one overlay directory
 * @item: the configfs item
 * @lock: protects @path, @target, @dtbo, @dtbo_size and @ovcs_id
 * @path: the firmware name it was applied from, or NULL
 * @target: path of the target base node, or NULL
 * @dtbo: copy of the applied blob (from either attribute), or NULL
 * @dtbo_size: its size
 * @ovcs_id: the overlay changeset id while applied, 0 otherwise
 * @parked: entry in ovpop_parked after a refused removal
 */
struct ovpop_item {
	struct config_item item;
	struct mutex lock;	/* see above; taken before ovpop_registry_lock */
	char *path;
	char *target;
	void *dtbo;
	size_t dtbo_size;
	int ovcs_id;
	struct list_head parked;
};

/*
 * ovpop_registry_lock serialises every apply and removal made through
 * configfs and protects ovpop_parked: overlays whose directory was
 * removed while the kernel refused to remove them (an overlay applied later
 * overlaps them). They stay applied and are removed as soon as that is
 * allowed. Lock order: an item's lock -> ovpop_registry_lock -> the OF
 * overlay mutex -> ovpop_lock.
 */
static DEFINE_MUTEX(ovpop_registry_lock);
static LIST_HEAD(ovpop_parked);

static struct ovpop_item *to_ovpop_item(struct config_item *item)
{
	return container_of(item, struct ovpop_item, item);
}

/* Checks the header and returns the blob's own size, or a negative errno */
static ssize_t ovpop_blob_size(const void *blob, size_t count)
{
	size_t size;

	if (count < sizeof(struct fdt_header) || fdt_magic(blob) != FDT_MAGIC)
		return -EINVAL;
	size = fdt_totalsize(blob);
	if (size < sizeof(struct fdt_header) || size > count)
		return -EINVAL;
	return size;
}

/* Called with ovpop_registry_lock held */
static void ovpop_retry_parked(void)
{
	struct ovpop_item *it, *tmp;
	int ret;

	list_for_each_entry_safe_reverse(it, tmp, &ovpop_parked, parked) {
		ret = of_overlay_remove(&it->ovcs_id);
		if (ret)
			continue;
		pr_info("%s: removed (deferred)\n", config_item_name(&it->item));
		list_del(&it->parked);
		config_item_put(&it->item);
	}
}

static int ovpop_apply(struct ovpop_item *it, const void *blob, size_t count)
{
	const char *name = config_item_name(&it->item);
	struct device_node *base = NULL;
	int ret, rm, id = 0;
	ssize_t size;

	size = ovpop_blob_size(blob, count);
	if (size < 0) {
		pr_err("%s: not a flattened device tree blob\n", name);
		return size;
	}
	if (it->target) {
		base = of_find_node_by_path(it->target);
		if (!base) {
			pr_err("%s: target %s: no such node\n", name, it->target);
			return -ENODEV;
		}
	}

	mutex_lock(&ovpop_registry_lock);
	ret = ovpop_compat_overlay_apply(blob, size, &id, base);
	if (ret && id) {
		/*
		 * The kernel leaves a failed apply registered, partly applied;
		 * device-creation errors of the notifiers fail it the same way.
		 */
		rm = of_overlay_remove(&id);
		if (rm && rm != -ENODEV)
			pr_err("%s: cannot remove the failed apply: %d\n", name,
			       rm);
	}
	mutex_unlock(&ovpop_registry_lock);
	of_node_put(base);

	if (ret) {
		pr_err("%s: apply failed: %d\n", name, ret);
		return ret;
	}

	it->dtbo = kvmalloc(size, GFP_KERNEL);
	if (it->dtbo)
		memcpy(it->dtbo, blob, size);
	it->dtbo_size = it->dtbo ? size : 0;
	it->ovcs_id = id;
	pr_info("%s: applied\n", name);
	return 0;
}

static int ovpop_remove(struct ovpop_item *it)
{
	int ret;

	mutex_lock(&ovpop_registry_lock);
	ret = of_overlay_remove(&it->ovcs_id);
	if (!ret)
		ovpop_retry_parked();
	mutex_unlock(&ovpop_registry_lock);
	return ret;
}

static int ovpop_check_write(struct ovpop_item *it)
{
	lockdep_assert_held(&it->lock);
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (it->ovcs_id) {
		pr_err("%s: already applied\n", config_item_name(&it->item));
		return -EPERM;
	}
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

	if (!ovpop_path_ok(name)) {
		pr_err("%s: bad firmware name '%s'\n",
		       config_item_name(&it->item), name);
		return -EINVAL;
	}
	ret = firmware_request_nowarn(&fw, name, NULL);
	if (ret) {
		pr_err("%s: cannot load firmware '%s': %d\n",
		       config_item_name(&it->item), name, ret);
		return ret;
	}
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
	const char *name = config_item_name(&it->item);
	struct device_node *np;

	if (!*target)
		return 0;
	if (!OVPOP_HAVE_TARGET_BASE) {
		pr_err("%s: a target base needs Linux 6.6 or later\n", name);
		return -EOPNOTSUPP;
	}
	np = *target == '/' ? of_find_node_by_path(target) : NULL;
	if (!np) {
		pr_err("%s: target %s: no such node\n", name, target);
		return -ENODEV;
	}
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
CONFIGFS_BIN_ATTR(ovpop_item_, dtbo, NULL, OVPOP_DTBO_MAX);

static struct configfs_attribute *ovpop_item_attrs[] = {
	&ovpop_item_attr_path,
	&ovpop_item_attr_status,
	&ovpop_item_attr_target,
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
		mutex_lock(&ovpop_registry_lock);
		list_add_tail(&it->parked, &ovpop_parked);
		mutex_unlock(&ovpop_registry_lock);
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
	mutex_lock(&ovpop_registry_lock);
	ovpop_retry_parked();
	list_for_each_entry_safe(it, tmp, &ovpop_parked, parked) {
		pr_err("%s: still cannot remove; left applied\n",
		       config_item_name(&it->item));
		list_del(&it->parked);
		config_item_put(&it->item);
	}
	mutex_unlock(&ovpop_registry_lock);
}
