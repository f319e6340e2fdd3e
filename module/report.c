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
 * not run yet), or "unbound" when no driver matches (none loaded yet).
 * Nodes the overlay only changed (a property on an existing bus) and nodes
 * without a device are not listed.
 *
 * configfs reads a binary attribute in two calls: the first asks for the
 * size, the second fills a buffer of that size. The report is made in the
 * first and kept in the item for the second, so a device binding between
 * the calls cannot make the two disagree.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/amba/bus.h>
#include <linux/device.h>
#include <linux/minmax.h>
#include <linux/of.h>
#include <linux/of_platform.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "item.h"

/* The devices' lines, with their nodes' order, before they are joined */
struct ovpop_lines {
	struct ovpop_line {
		unsigned int order;
		char *text;
	} *line;
	unsigned int n, size;
	size_t len;
};

static int ovpop_line_cmp(const void *a, const void *b)
{
	unsigned int x = ((const struct ovpop_line *)a)->order;
	unsigned int y = ((const struct ovpop_line *)b)->order;

	return x < y ? -1 : x > y;
}

/* The device made for @np, by ovpop or the kernel; a reference is held */
static struct device *ovpop_report_device(struct device_node *np)
{
	struct platform_device *pdev;
	struct device *dev;

	dev = ovpop_node_device(np);
	if (dev)
		return dev;
	pdev = of_find_device_by_node(np);
	if (pdev)
		return &pdev->dev;
	return bus_find_device_by_of_node(&amba_bustype, np);
}

/* Does @drv match the device @data (also "not yet": -EPROBE_DEFER)? */
static int ovpop_report_match(struct device_driver *drv, void *data)
{
	struct device *dev = data;

	return dev->bus->match ? dev->bus->match(dev, drv) != 0 : 1;
}

static char *ovpop_report_line(struct device *dev, struct device_node *np)
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
	else if (dev->bus &&
		 bus_for_each_drv(dev->bus, NULL, dev, ovpop_report_match))
		drv = "deferred";
	line = kasprintf(GFP_KERNEL, "%s %s %pOF %s\n",
			 dev->bus ? dev->bus->name : "none", dev_name(dev), np,
			 drv);
	device_unlock(dev);
	return line;
}

static int ovpop_report_add(struct ovpop_lines *ls, struct device_node *np,
			    unsigned int order)
{
	struct device *dev = ovpop_report_device(np);
	char *line;

	if (!dev)
		return 0;
	line = ovpop_report_line(dev, np);
	put_device(dev);
	if (!line || ovpop_grow((void **)&ls->line, &ls->size, ls->n,
				sizeof(*ls->line))) {
		kfree(line);
		return -ENOMEM;
	}
	ls->line[ls->n].order = order;
	ls->line[ls->n++].text = line;
	ls->len += strlen(line);
	return 0;
}

/* The lines of the devices of the nodes in @added, in their order */
static int ovpop_report_lines(struct ovpop_lines *ls,
			      const struct ovpop_added *added, unsigned int n)
{
	struct device_node *np;
	int order, ret;

	/* of_find_all_nodes() puts the node it is given and gets the next */
	for (np = of_find_all_nodes(NULL); np; np = of_find_all_nodes(np)) {
		if (!np->parent || !of_node_check_flag(np, OF_POPULATED))
			continue;
		order = ovpop_layer_added_find(added, n, np);
		if (order < 0)
			continue;
		ret = ovpop_report_add(ls, np, order);
		if (ret) {
			of_node_put(np);
			return ret;
		}
	}
	sort(ls->line, ls->n, sizeof(*ls->line), ovpop_line_cmp, NULL);
	return 0;
}

/* Makes the report of @l into *@out (kvmalloc()ed); returns its length */
static ssize_t ovpop_report_make(const struct ovpop_layer *l, char **out)
{
	struct ovpop_added *added;
	struct ovpop_lines ls = {};
	unsigned int i;
	ssize_t ret;
	size_t k;
	char *p;

	*out = NULL;
	ret = ovpop_layer_added(l, &added);
	if (ret > 0)
		ret = ovpop_report_lines(&ls, added, ret);
	kfree(added);
	if (!ret && ls.len) {
		*out = kvmalloc(ls.len, GFP_KERNEL);
		ret = *out ? ls.len : -ENOMEM;
	}
	p = *out;
	for (i = 0; i < ls.n; i++) {
		k = strlen(ls.line[i].text);
		if (p) {
			memcpy(p, ls.line[i].text, k);
			p += k;
		}
		kfree(ls.line[i].text);
	}
	kfree(ls.line);
	return ret;
}

/**
 * ovpop_report_read() - the devices attribute's read callback
 * @it: the item; its lock is held
 * @buf: NULL for configfs's first call, which wants the size; then a
 *	 buffer of that size
 * @size: the size of @buf
 *
 * The first call makes the report and keeps it in @it; the second copies
 * and frees it. If another reader's first call came in between, the report
 * is made again and cut or padded with empty lines to @size.
 *
 * Return: the size of the report, or a negative errno.
 */
ssize_t ovpop_report_read(struct ovpop_item *it, void *buf, size_t size)
{
	ssize_t len;
	size_t n;

	lockdep_assert_held(&it->lock);
	if (buf && it->report && it->report_len == size) {
		memcpy(buf, it->report, size);
	} else {
		kvfree(it->report);
		it->report = NULL;
		it->report_len = 0;
		len = it->ovcs_id ? ovpop_report_make(&it->layer, &it->report) : 0;
		if (len < 0 || !buf) {
			it->report_len = max_t(ssize_t, len, 0);
			return len;
		}
		/* whole lines that fit, then empty ones */
		n = min_t(size_t, len, size);
		while (n && n < len && it->report[n - 1] != '\n')
			n--;
		memcpy(buf, it->report, n);
		memset(buf + n, '\n', size - n);
	}
	kvfree(it->report);
	it->report = NULL;
	it->report_len = 0;
	return size;
}
