// SPDX-License-Identifier: GPL-2.0
/*
 * The devices report of a configfs overlay directory: its "devices"
 * attribute lists, a line each and in the overlay's order (that of its
 * changeset: the source's), the devices of the nodes it added or enabled,
 * whoever created them (ovpop or, for nodes outside its populations or
 * with populate=0, the kernel):
 *
 *	<bus> <device> <node> <driver>
 *
 * where <driver> is the bound driver's name, "deferred" when a driver of
 * its bus matches it but is not bound (its probe deferred or failed, or has
 * not run yet; also an AMBA device whose ID is not read yet: reading it
 * here would touch the hardware), or "unbound" when no driver matches
 * (none loaded yet).
 * Nodes the overlay only changed (a property on an existing bus) and nodes
 * without a device are not listed.
 *
 * The nodes are those the overlay's layer recorded as pointers (layer.c),
 * used under ovpop_stack_lock and only while the item's overlay is applied:
 * its changeset holds a reference on the node of each of its entries until
 * it is freed (of_changeset_action()), at the overlay's removal, which
 * happens under that lock (nothing else removes it: of_overlay_remove()
 * needs its id, of_overlay_remove_all() has no caller in 6.1-7.3). Their
 * ancestors stay too: they are the overlay's own nodes, of the base tree
 * (never freed) or of earlier overlays, which the OF core does not remove
 * while a later one has entries at or below their nodes
 * (overlay_removal_is_ok()). The tree is never walked: a walk without the
 * OF core's of_mutex can step from a node of an overlay being removed to
 * its freed parent or sibling.
 *
 * configfs reads a binary attribute in two calls: the first asks for the
 * size, the second fills a buffer of that size, all of which it copies to
 * the reader. The report is made in the first and kept in the item for the
 * second, so a device binding between the calls cannot make the two
 * disagree; if they do, the second call still writes every byte.
 *
 * Only platform and AMBA devices are listed: an I2C or SPI client an
 * overlay adds is its bus driver's, and not looked up here.
 */
#include <linux/amba/bus.h>
#include <linux/device.h>
#include <linux/minmax.h>
#include <linux/of.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "item.h"

/* The devices' lines, before they are joined */
struct ovpop_lines {
	char **line;
	unsigned int n, size;
	size_t len;
};

/* The device made for @np, by ovpop or the kernel; a reference is held */
static struct device *ovpop_report_device(struct device_node *np)
{
	struct device *dev = ovpop_node_device(np);

	return dev ?: ovpop_kernel_device(np);
}

/* Does @drv match the device @data (also "not yet": -EPROBE_DEFER)? */
static int ovpop_report_match(struct device_driver *drv, void *data)
{
	struct device *dev = data;

	return dev->bus->match ? dev->bus->match(dev, drv) != 0 : 1;
}

static char *ovpop_report_line(struct device *dev, const char *node)
{
	const char *drv = "unbound";
	char *line;

	/*
	 * The lock keeps the driver (and its name) bound while it is read; the
	 * core also matches drivers under it (__device_attach()).
	 */
	device_lock(dev);
	if (dev->driver)
		drv = dev->driver->name;
	else if (IS_ENABLED(CONFIG_ARM_AMBA) && dev->bus == &amba_bustype &&
		 !to_amba_device(dev)->periphid)
		drv = "deferred";	/* the bus defers it until it reads the ID */
	else if (dev->bus &&
		 bus_for_each_drv(dev->bus, NULL, dev, ovpop_report_match))
		drv = "deferred";
	line = kasprintf(GFP_KERNEL, "%s %s %s %s\n",
			 dev->bus ? dev->bus->name : "none", dev_name(dev), node,
			 drv);
	device_unlock(dev);
	return line;
}

/* A device to report: a reference to it, and its node's full name */
struct ovpop_found {
	struct device *dev;
	char *node;
};

struct ovpop_founds {
	struct ovpop_found *f;
	unsigned int n, size;
};

static void ovpop_founds_free(struct ovpop_founds *fs)
{
	while (fs->n) {
		fs->n--;
		put_device(fs->f[fs->n].dev);
		kfree(fs->f[fs->n].node);
	}
	kfree(fs->f);
}

static int ovpop_report_find(struct ovpop_founds *fs, struct device_node *np)
{
	struct device *dev;
	char *node;

	if (!of_node_check_flag(np, OF_POPULATED))
		return 0;	/* no device: skip the look-up */
	dev = ovpop_report_device(np);
	if (!dev)
		return 0;
	node = kasprintf(GFP_KERNEL, "%pOF", np);
	if (!node || ovpop_grow((void **)&fs->f, &fs->size, fs->n,
				sizeof(*fs->f))) {
		kfree(node);
		put_device(dev);
		return -ENOMEM;
	}
	fs->f[fs->n].dev = dev;
	fs->f[fs->n++].node = node;
	return 0;
}

/*
 * The devices of @it's added nodes, in their order, with their nodes' names.
 * Under ovpop_stack_lock @it->ovcs_id tells whether the overlay is applied
 * (apply.c and release.c change it under that lock), and while it is, the
 * layer's nodes are live. No device lock is taken under it: a probe can
 * hold one for long (a firmware load), and a reader of this world-readable
 * attribute must not keep the loader waiting for that. Killable, as a
 * reader waits here for an apply or removal.
 */
static int ovpop_report_found(struct ovpop_founds *fs, struct ovpop_item *it)
{
	const struct ovpop_layer *l = &it->layer;
	unsigned int i;
	int ret;

	ret = mutex_lock_killable(&ovpop_stack_lock);
	if (ret)
		return ret;
	if (it->ovcs_id && l->all)
		ret = -ENOMEM;	/* the record is incomplete */
	for (i = 0; it->ovcs_id && !ret && i < l->nadded; i++)
		ret = ovpop_report_find(fs, l->added[i]);
	mutex_unlock(&ovpop_stack_lock);
	return ret;
}

/* The lines of @it's devices; each device is locked alone, without ours */
static int ovpop_report_lines(struct ovpop_lines *ls, struct ovpop_item *it)
{
	struct ovpop_founds fs = {};
	unsigned int i;
	char *line;
	int ret;

	ret = ovpop_report_found(&fs, it);
	for (i = 0; !ret && i < fs.n; i++) {
		line = ovpop_report_line(fs.f[i].dev, fs.f[i].node);
		if (!line || ovpop_grow((void **)&ls->line, &ls->size, ls->n,
					sizeof(*ls->line))) {
			kfree(line);
			ret = -ENOMEM;
			break;
		}
		ls->line[ls->n++] = line;
		ls->len += strlen(line);
	}
	ovpop_founds_free(&fs);
	return ret;
}

static void ovpop_lines_free(struct ovpop_lines *ls)
{
	while (ls->n)
		kfree(ls->line[--ls->n]);
	kfree(ls->line);
}

/* Joins the lines into *@out (kvmalloc()ed); returns the length */
static ssize_t ovpop_report_join(const struct ovpop_lines *ls, char **out)
{
	unsigned int i;
	size_t k;
	char *p;

	if (!ls->len)
		return 0;
	p = kvmalloc(ls->len, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	*out = p;
	for (i = 0; i < ls->n; i++) {
		k = strlen(ls->line[i]);
		memcpy(p, ls->line[i], k);
		p += k;
	}
	return ls->len;
}

/*
 * Makes the report of @it into *@out (kvmalloc()ed, NULL if empty) and
 * returns its length. The item's lock is not held: ovpop_stack_lock is
 * taken after it where both are.
 */
static ssize_t ovpop_report_make(struct ovpop_item *it, char **out)
{
	struct ovpop_lines ls = {};
	ssize_t ret;

	*out = NULL;
	ret = ovpop_report_lines(&ls, it);
	if (!ret)
		ret = ovpop_report_join(&ls, out);
	ovpop_lines_free(&ls);
	if (ret > OVPOP_REPORT_LIMIT) {
		kvfree(*out);
		*out = NULL;
		ret = -EFBIG;
	}
	return ret;
}

/* Copies @report (@len) to @buf (@size): whole lines that fit, then '\n's */
static void ovpop_report_copy(void *buf, size_t size, const char *report,
			      size_t len)
{
	size_t n = min(len, size);

	while (n && n < len && report[n - 1] != '\n')
		n--;
	memcpy(buf, report, n);
	memset(buf + n, '\n', size - n);
}

/**
 * ovpop_report_read() - the devices attribute's read callback
 * @it: the item; its lock is not held
 * @buf: NULL for configfs's first call, which wants the size; then a
 *	 buffer of that size
 * @size: the size of @buf
 *
 * The first call makes the report and keeps it in @it; the second copies
 * and frees it. If another reader's first call came in between, the report
 * is made again and cut or padded with empty lines to @size.
 *
 * Return: the size of the report, or a negative errno (-EFBIG above
 * OVPOP_REPORT_LIMIT).
 */
ssize_t ovpop_report_read(struct ovpop_item *it, void *buf, size_t size)
{
	char *report, *old;
	ssize_t len;

	if (buf) {
		mutex_lock(&it->lock);
		report = it->report_len == size ? it->report : NULL;
		if (report) {
			it->report = NULL;
			it->report_len = 0;
		}
		mutex_unlock(&it->lock);
		if (report) {
			memcpy(buf, report, size);
			kvfree(report);
			return size;
		}
	}
	len = ovpop_report_make(it, &report);
	if (len < 0)
		return len;
	if (buf) {
		ovpop_report_copy(buf, size, report, len);
		kvfree(report);
		return size;
	}
	mutex_lock(&it->lock);
	old = it->report;
	it->report = report;
	it->report_len = len;
	mutex_unlock(&it->lock);
	kvfree(old);
	return len;
}
