// SPDX-License-Identifier: GPL-2.0
/*
 * Applying and removing the overlay of one configfs directory (item.h):
 * checks before the kernel sees a blob, an apply that is whole or rolled
 * back, the stack of applied overlays (stack.c) and the overlays whose
 * directory is gone while the kernel still refuses their removal.
 *
 * Errors are kept for the item's error attribute by ovpop_fail(). Every
 * function here but ovpop_park() and ovpop_parked_exit() is called with the
 * item's lock held; they take ovpop_stack_lock inside it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/firmware.h>
#include <linux/libfdt.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "item.h"

static unsigned int max_size = SZ_1M;
module_param(max_size, uint, 0644);
MODULE_PARM_DESC(max_size, "Largest overlay blob accepted, in bytes (default 1 MiB; dtbo writes stop at 16 MiB)");

/*
 * Overlays whose directory was removed although the kernel refused to remove
 * them: only if an overlay applied outside this loader covers them, since
 * the stack pins the others. They stay applied and are removed as soon as
 * that is allowed. Protected by ovpop_stack_lock.
 */
static LIST_HEAD(ovpop_parked);

/**
 * ovpop_fail() - logs an error of the item and keeps it for its error
 *		  attribute
 * @it: the item
 * @err: the error
 * @fmt: the message: what failed, naming the node or file
 *
 * Return: @err.
 */
__printf(3, 4) int ovpop_fail(struct ovpop_item *it, int err,
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

static int ovpop_too_big(struct ovpop_item *it, size_t count)
{
	return ovpop_fail(it, -EFBIG, "%zu bytes, more than max_size %u", count,
			  max_size);
}

/*
 * Checks the blob (blob.c) and returns its own size, or a negative errno;
 * *@check tells whether the precheck has to look for conflicts
 */
static ssize_t ovpop_blob_size(struct ovpop_item *it, const void *blob,
			       size_t count, bool *check)
{
	char msg[96];
	size_t size;
	int ret;

	if (count > max_size)
		return ovpop_too_big(it, count);
	if (count < sizeof(struct fdt_header) || fdt_magic(blob) != FDT_MAGIC)
		return ovpop_fail(it, -EINVAL, "not a flattened device tree blob (%zu bytes)",
				  count);
	size = fdt_totalsize(blob);
	if (size < sizeof(struct fdt_header) || size > count)
		return ovpop_fail(it, -EINVAL, "header size %zu, but %zu bytes written",
				  size, count);
	ret = ovpop_blob_check(blob, size, msg, sizeof(msg));
	if (ret < 0)
		return ovpop_fail(it, ret, "malformed blob: %s",
				  ret == -EINVAL ? msg : "out of memory");
	*check = ret;
	return size;
}

/*
 * Pins an item (rmdir fails with EBUSY) or unpins it; see stack.c. An item
 * whose rmdir has begun (unlinked, or parked) cannot be pinned.
 */
static int ovpop_item_pin(struct ovpop_layer *l, bool pinned)
{
	struct ovpop_item *it = container_of(l, struct ovpop_item, layer);

	lockdep_assert_held(&ovpop_stack_lock);
	if (pinned && it->dropped)
		return -ENOENT;
	if (!pinned) {
		configfs_undepend_item(&it->item);
		return 0;
	}
	/* Called from the callbacks of this subsystem only: the unlocked one */
	return configfs_depend_item_unlocked(&ovpop_subsys, &it->item);
}

/*
 * Removes the overlay of @it and takes its layer out of the stack. The
 * kernel removes an overlay even when a reconfig notifier fails (a device
 * that cannot be created again for a node the removal enables):
 * of_overlay_remove() then sets the id to 0 and still returns the error.
 * Such a removal is done; its error is logged and kept in *@notify_err.
 * Called with ovpop_stack_lock held.
 *
 * Return: 0 if the overlay is gone, else the kernel's refusal (it stays
 * applied).
 */
static int ovpop_remove_overlay(struct ovpop_item *it, int *notify_err)
{
	int ret;

	ret = ovpop_release_overlay(&it->layer, &it->ovcs_id);
	*notify_err = 0;
	if (it->ovcs_id)
		return ret;
	ovpop_stack_del(&it->layer);
	if (ret) {
		pr_err("%s: removed, but a notifier failed (a device not created again? see the lines above): %d\n",
		       config_item_name(&it->item), ret);
		*notify_err = ret;
	}
	return 0;
}

/* Called with ovpop_stack_lock held */
static void ovpop_retry_parked(void)
{
	struct ovpop_item *it, *tmp;
	int err;

	list_for_each_entry_safe_reverse(it, tmp, &ovpop_parked, parked) {
		if (ovpop_remove_overlay(it, &err))
			continue;
		pr_info("%s: removed (deferred)\n", config_item_name(&it->item));
		list_del(&it->parked);
		config_item_put(&it->item);
	}
}

/*
 * An overlay notifier refused the fragment that targets @np: name it, and
 * for of-fpga-region (drivers/fpga/of-fpga-region.c, which programs the
 * region's image from OF_OVERLAY_PRE_APPLY) the likely cause
 */
static void ovpop_fail_refused(struct ovpop_item *it, int ret,
			       struct device_node *np)
{
	if (!of_device_is_compatible(np, "fpga-region"))
		ovpop_fail(it, ret,
			   "refused by a driver acting on %pOF (an overlay notifier; see the kernel log)",
			   np);
	else if (ret == -ENOENT)
		ovpop_fail(it, ret,
			   "the FPGA region %pOF did not find its image (firmware-name, in /lib/firmware)",
			   np);
	else
		ovpop_fail(it, ret,
			   "the FPGA region %pOF refused it: programming or its bridges failed (its manager's state is in /sys/class/fpga_manager), or its rules (one image at a time, not with external-fpga-config)",
			   np);
}

/* Called with ovpop_stack_lock held; returns the apply's error */
static int ovpop_apply_locked(struct ovpop_item *it, const void *blob,
			      size_t size, struct device_node *base, bool check)
{
	int ret = 0, rm = 0, id = 0;
	char msg[96];
	u64 t0;

	if (check) {
		t0 = ovpop_time_start();
		ret = ovpop_precheck(blob, size, base, msg, sizeof(msg));
		ovpop_time_end(OVPOP_STAT_PRECHECK, t0);
	}
	if (ret)
		return ovpop_fail(it, ret, "cannot be applied: %s",
				  ret == -EINVAL ? msg : "out of memory");
	ovpop_stack_record(&it->layer);
	t0 = ovpop_time_start();
	ret = ovpop_compat_overlay_apply(blob, size, &id, base);
	ovpop_time_end(OVPOP_STAT_APPLY, t0);
	ovpop_stack_record_end(&it->layer);
	if (ret && id && ovpop_stack_applied(&it->layer) < 0) {
		/* a changeset built and not applied cannot be removed */
		ovpop_layer_clear(&it->layer);
		return ovpop_fail(it, ret,
				  "refused; the kernel keeps its unapplied overlay #%d, which blocks removing the overlays before it that it covers",
				  id);
	}
	if (ret && id) {
		/*
		 * The kernel leaves a failed apply registered, its entries
		 * applied if it got to them; device-creation errors of the
		 * notifiers fail it the same way.
		 */
		rm = ovpop_release_overlay(&it->layer, &id);
		if (id) {
			ovpop_layer_clear(&it->layer);
			return ovpop_fail(it, ret,
					  "refused; the kernel cannot remove its partial overlay #%d (%d), so overlays applied before it stay until reboot",
					  id, rm);
		}
	}
	if (ret) {
		if (it->layer.err)
			ovpop_fail(it, ret, "cannot create the device of %s; rolled back%s",
				   it->layer.err_node ?: "a node",
				   rm ? ", a notifier failing (see the kernel log)" : "");
		else if (it->layer.refused_by)
			ovpop_fail_refused(it, ret, it->layer.refused_by);
		else
			ovpop_fail(it, ret, "refused by the kernel (see the OF: lines of its log)");
		ovpop_layer_clear(&it->layer);
		return ret;
	}
	it->ovcs_id = id;
	ovpop_stack_push(&it->layer);
	ovpop_stack_update(ovpop_item_pin);
	return 0;
}

/**
 * ovpop_apply() - checks and applies a blob, whole or not at all
 * @it: the item, not applied
 * @blob: the blob; trailing bytes after its header's size are ignored
 * @count: the bytes written
 *
 * On success the item keeps a copy of the blob (for reading it back) and
 * its error is cleared.
 *
 * Return: 0 or the error, also kept in the item's error.
 */
int ovpop_apply(struct ovpop_item *it, const void *blob, size_t count)
{
	struct device_node *base = NULL;
	bool check;
	ssize_t size;
	int ret;

	size = ovpop_blob_size(it, blob, count, &check);
	if (size < 0)
		return size;
	if (it->target) {
		base = of_find_node_by_path(it->target);
		if (!base)
			return ovpop_fail(it, -ENODEV, "target %s: no such node",
					  it->target);
	}

	mutex_lock(&ovpop_stack_lock);
	ret = ovpop_apply_locked(it, blob, size, base, check);
	mutex_unlock(&ovpop_stack_lock);
	of_node_put(base);
	if (ret)
		return ret;

	if (blob != it->dtbo) {	/* else the stored blob was applied */
		kvfree(it->dtbo);
		it->dtbo = kvmalloc(size, GFP_KERNEL);
		if (it->dtbo)
			memcpy(it->dtbo, blob, size);
		it->dtbo_size = it->dtbo ? size : 0;
	}
	kfree(it->error);
	it->error = NULL;
	pr_info("%s: applied\n", config_item_name(&it->item));
	return 0;
}

/* Called with ovpop_stack_lock held; see ovpop_remove_overlay() */
static int ovpop_remove_locked(struct ovpop_item *it, int *notify_err)
{
	int ret;

	ret = ovpop_remove_overlay(it, notify_err);
	if (!ret) {
		ovpop_retry_parked();
		ovpop_stack_update(ovpop_item_pin);
	}
	return ret;
}

/**
 * ovpop_remove() - removes the item's overlay, for its rmdir
 * @it: the item, applied
 *
 * A removal that the kernel completed although a device could not be
 * created again for a node it enabled counts as done: the item can go, the
 * error is in the kernel log.
 *
 * Return: 0, or the kernel's refusal (the overlay stays applied).
 */
int ovpop_remove(struct ovpop_item *it)
{
	int ret, err;

	mutex_lock(&ovpop_stack_lock);
	ret = ovpop_remove_locked(it, &err);
	mutex_unlock(&ovpop_stack_lock);
	return ret;
}

/* Checks that the writer may load or unload overlays */
static int ovpop_check_cap(struct ovpop_item *it)
{
	lockdep_assert_held(&it->lock);
	if (!capable(CAP_SYS_ADMIN))
		return ovpop_fail(it, -EPERM, "loading overlays needs CAP_SYS_ADMIN");
	return 0;
}

/**
 * ovpop_unapply() - removes the item's overlay and keeps the item
 * @it: the item
 *
 * For the dtbocfg dialect's status 0. An overlay that a later one covers
 * is refused here rather than by the kernel (which would log an error).
 *
 * A removal that the kernel completed although a device could not be
 * created again for a node it enabled returns 0 and keeps that error in
 * the item's error attribute.
 *
 * Return: 0 (also if it was not applied), -EPERM, -EBUSY or the kernel's
 * error; the overlay stays applied on error.
 */
int ovpop_unapply(struct ovpop_item *it)
{
	int ret, err = 0;

	ret = ovpop_check_cap(it);
	if (ret || !it->ovcs_id)
		return ret;
	mutex_lock(&ovpop_stack_lock);
	ret = it->layer.pinned ? -EBUSY : ovpop_remove_locked(it, &err);
	mutex_unlock(&ovpop_stack_lock);
	if (ret == -EBUSY)
		return ovpop_fail(it, ret, "covered by a later overlay; remove that first");
	if (ret)
		return ovpop_fail(it, ret, "refused by the kernel (see the OF: lines of its log)");
	kfree(it->path);
	it->path = NULL;
	kfree(it->error);
	it->error = NULL;
	if (err) {
		ovpop_fail(it, err,
			   "removed, but a notifier failed (a device not created again? see the kernel log)");
		return 0;
	}
	pr_info("%s: removed\n", config_item_name(&it->item));
	return 0;
}

/**
 * ovpop_check_write() - may the writer apply an overlay through this item
 * @it: the item
 *
 * Return: 0, or -EPERM (the reason is kept in the item's error).
 */
int ovpop_check_write(struct ovpop_item *it)
{
	int ret = ovpop_check_cap(it);

	if (ret)
		return ret;
	if (security_locked_down(LOCKDOWN_DEVICE_TREE))
		return ovpop_fail(it, -EPERM, "the kernel is locked down");
	if (it->ovcs_id)
		return ovpop_fail(it, -EPERM, "already applied");
	return 0;
}

/**
 * ovpop_store_blob() - keeps a blob to apply later (the dtbocfg dialect)
 * @it: the item, not applied
 * @blob: the blob as written; checked only when it is applied
 * @count: its size; 0 forgets the stored blob
 *
 * Return: 0, -EPERM (also while applied, as dtbocfg), -EFBIG or -ENOMEM.
 */
int ovpop_store_blob(struct ovpop_item *it, const void *blob, size_t count)
{
	void *copy = NULL;
	int ret;

	ret = ovpop_check_cap(it);
	if (ret)
		return ret;
	if (it->ovcs_id)
		return ovpop_fail(it, -EPERM, "applied: write 0 to status first");
	if (count > max_size)
		return ovpop_too_big(it, count);
	if (count) {
		copy = kvmalloc(count, GFP_KERNEL);
		if (!copy)
			return ovpop_fail(it, -ENOMEM, "cannot store the blob");
		memcpy(copy, blob, count);
	}
	kvfree(it->dtbo);
	it->dtbo = copy;
	it->dtbo_size = count;
	kfree(it->error);
	it->error = NULL;
	return 0;
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

/**
 * ovpop_apply_path() - loads a blob with the firmware loader and applies it
 * @it: the item, not applied
 * @name: a name under the firmware search path (no leading '/', no "..")
 *
 * Return: 0 or the error, also kept in the item's error.
 */
int ovpop_apply_path(struct ovpop_item *it, const char *name)
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

/**
 * ovpop_park() - keeps an overlay whose directory is gone but that the
 *		  kernel refused to remove
 * @it: the item; the parked list takes over the caller's reference
 */
void ovpop_park(struct ovpop_item *it)
{
	pr_err("%s: cannot remove; it stays applied and is removed once the overlays applied after it are\n",
	       config_item_name(&it->item));
	mutex_lock(&ovpop_stack_lock);
	list_add_tail(&it->parked, &ovpop_parked);
	mutex_unlock(&ovpop_stack_lock);
}

/**
 * ovpop_parked_exit() - removes the parked overlays at module exit
 *
 * Called after the subsystem is unregistered: everything applied after
 * them through configfs is gone by then. What the kernel still refuses is
 * left applied and logged.
 */
void ovpop_parked_exit(void)
{
	struct ovpop_item *it, *tmp;

	mutex_lock(&ovpop_stack_lock);
	ovpop_retry_parked();
	list_for_each_entry_safe(it, tmp, &ovpop_parked, parked) {
		pr_err("%s: still cannot remove; left applied\n",
		       config_item_name(&it->item));
		ovpop_stack_del(&it->layer);
		list_del(&it->parked);
		config_item_put(&it->item);
	}
	mutex_unlock(&ovpop_stack_lock);
}
