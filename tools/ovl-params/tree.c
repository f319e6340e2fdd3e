// SPDX-License-Identifier: GPL-2.0
/*
 * Edits of the overlay blob by path (offsets move with every write), node
 * renames that keep __fixups__, __local_fixups__ and __symbols__ pointing
 * at the renamed node (dtoverlay_set_node_name()), and the moves of
 * __fixups__ entries that dtoverlay's cell_changed_callback() makes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "ovl-params.h"

#define OP_PATH_MAX	1024

/**
 * op_fmt() - snprintf() into @buf of @n bytes, failing the program if it is short
 * @b: the blob, for the message
 * @buf: the buffer
 * @n: its size
 * @fmt: the format
 */
void op_fmt(const struct op_blob *b, char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= n)
		op_fail(b, OP_REFUSED, "a path or name longer than %zu bytes", n - 1);
}

/**
 * op_grow() - doubles the room of the blob
 * @b: the blob
 *
 * Fails the program if memory runs out.
 */
void op_grow(struct op_blob *b)
{
	size_t cap = b->cap * 2;
	void *fdt = realloc(b->fdt, cap);

	if (!fdt || fdt_open_into(fdt, fdt, (int)cap))
		op_fail(b, OP_SYSTEM, "out of memory");
	b->fdt = fdt;
	b->cap = cap;
}

/*
 * The node at @path, or -1. Each component matches a node's whole name:
 * fdt_path_offset() lets "a" match a sibling "a@1" that comes first.
 */
int op_node(const struct op_blob *b, const char *path)
{
	const char *p = path, *q, *name;
	int node = 0, sub, len;
	size_t n;

	if (*p != '/')
		return -1;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			return node;
		q = strchr(p, '/');
		n = q ? (size_t)(q - p) : strlen(p);
		fdt_for_each_subnode(sub, b->fdt, node) {
			name = fdt_get_name(b->fdt, sub, &len);
			if (name && (size_t)len == n && !memcmp(name, p, n))
				break;
		}
		if (sub < 0)
			return -1;
		node = sub;
		p += n;
	}
}

/* the node with @phandle, or -1 */
int op_node_by_phandle(const struct op_blob *b, u32 phandle)
{
	int node = fdt_node_offset_by_phandle(b->fdt, phandle);

	return node < 0 ? -1 : node;
}

/* the path of @node in @buf */
void op_path(const struct op_blob *b, int node, char *buf, size_t len)
{
	if (fdt_get_path(b->fdt, node, buf, (int)len))
		op_fail(b, OP_REFUSED, "a node path longer than %zu bytes", len);
}

static int op_node_or_fail(const struct op_blob *b, const char *path)
{
	int node = op_node(b, path);

	if (node < 0)
		op_fail(b, OP_SYSTEM, "internal: no node %s", path);
	return node;
}

/* @prop of the node at @path set to @len bytes at @val (growing the blob) */
void op_setprop(struct op_blob *b, const char *path, const char *prop,
		const void *val, int len)
{
	void *copy = malloc(len ? len : 1);
	int err;

	/* @val may point into the blob, which moves when it grows */
	if (!copy)
		op_fail(b, OP_SYSTEM, "out of memory");
	memcpy(copy, val, len);
	while ((err = fdt_setprop(b->fdt, op_node_or_fail(b, path), prop, copy, len)) ==
	       -FDT_ERR_NOSPACE)
		op_grow(b);
	free(copy);
	if (err)
		op_fail(b, OP_REFUSED, "cannot set %s/%s: %s", path, prop, fdt_strerror(err));
}

/* @prop of the node at @path deleted; a missing one is fine */
void op_delprop(struct op_blob *b, const char *path, const char *prop)
{
	int err = fdt_delprop(b->fdt, op_node_or_fail(b, path), prop);

	if (err && err != -FDT_ERR_NOTFOUND)
		op_fail(b, OP_REFUSED, "cannot delete %s/%s: %s", path, prop, fdt_strerror(err));
}

/**
 * op_prop_at() - the @i-th property of the node at @path
 * @b: the blob
 * @path: the node
 * @i: which property, from 0
 * @name: its name
 * @len: its length
 *
 * Returns its value (valid until the next write), or NULL past the last.
 */
const void *op_prop_at(const struct op_blob *b, const char *path, int i,
		       const char **name, int *len)
{
	int node = op_node(b, path), off, n = 0;

	if (node < 0)
		return NULL;
	fdt_for_each_property_offset(off, b->fdt, node)
		if (n++ == i)
			return fdt_getprop_by_offset(b->fdt, off, name, len);
	return NULL;
}

/**
 * op_put() - sets @prop as op_setprop(), but a "bootargs" with a value
 * appends to the one there after a space, each time (dtoverlay's rule)
 * @b: the blob
 * @path: the node
 * @prop: the property
 * @val: the value, a NUL-terminated string for bootargs
 * @len: its length
 */
void op_put(struct op_blob *b, const char *path, const char *prop, const void *val, int len)
{
	const char *old;
	char *joined;
	int oldlen;

	old = fdt_getprop(b->fdt, op_node_or_fail(b, path), prop, &oldlen);
	if (strcmp(prop, "bootargs") || !old || oldlen <= 0 || !old[0] || len <= 0) {
		op_setprop(b, path, prop, val, len);
		return;
	}
	joined = malloc(oldlen + len);
	if (!joined)
		op_fail(b, OP_SYSTEM, "out of memory");
	memcpy(joined, old, oldlen);
	joined[oldlen - 1] = ' ';
	memcpy(joined + oldlen, val, len);
	op_setprop(b, path, prop, joined, oldlen + len);
	free(joined);
}

/*
 * For each property of the node at @list (a string list each), every
 * string that starts with @old followed by one of @ends (or its end) gets
 * @new instead of that prefix; a string equal to @drop is removed, and a
 * property left empty deleted. Used for __fixups__ and __symbols__.
 */
static void op_rewrite_lists(struct op_blob *b, const char *list, const char *old,
			     const char *new, const char *ends, const char *drop)
{
	int i, len, changed;
	const char *name, *val, *s;
	char *out, *o;

	for (i = 0; (val = op_prop_at(b, list, i, &name, &len)); i++) {
		if (len <= 0 || val[len - 1])
			continue;
		/* each string may grow by strlen(new) */
		out = malloc(len + (size_t)len * (new ? strlen(new) : 0) + 1);
		if (!out)
			op_fail(b, OP_SYSTEM, "out of memory");
		o = out;
		changed = 0;
		for (s = val; s < val + len; s += strlen(s) + 1) {
			size_t ol = old ? strlen(old) : 0;

			if (drop && !strcmp(s, drop)) {
				changed = 1;
				continue;
			}
			if (old && !strncmp(s, old, ol) && (!s[ol] || strchr(ends, s[ol]))) {
				o += sprintf(o, "%s%s", new, s + ol) + 1;
				changed = 1;
				continue;
			}
			o += sprintf(o, "%s", s) + 1;
		}
		if (changed) {
			char prop[256];

			op_fmt(b, prop, sizeof(prop), "%s", name);
			if (o == out) {
				op_delprop(b, list, prop);
				i--;
			} else {
				op_setprop(b, list, prop, out, (int)(o - out));
			}
		}
		free(out);
	}
}

/**
 * op_rename() - renames the node at @path to @name, as dtoverlay does
 * @b: the blob
 * @path: the node
 * @name: its new name (unit address included)
 *
 * The paths in __fixups__ and __symbols__ of it and of its children follow,
 * and so does its node in __local_fixups__. A sibling of that name already
 * there is refused (dtoverlay would make two).
 */
void op_rename(struct op_blob *b, const char *path, const char *name)
{
	char new[OP_PATH_MAX], lf[OP_PATH_MAX];
	const char *slash = strrchr(path, '/');
	int err;

	if (!*name || strchr(name, '/'))
		op_fail(b, OP_REFUSED, "'%s' is not a node name", name);
	op_fmt(b, new, sizeof(new), "%.*s/%s", (int)(slash - path), path, name);
	if (!strcmp(new, path))
		return;
	if (op_node(b, new) >= 0)
		op_fail(b, OP_REFUSED, "cannot rename %s: %s exists", path, new);
	while ((err = fdt_set_name(b->fdt, op_node_or_fail(b, path), name)) == -FDT_ERR_NOSPACE)
		op_grow(b);
	if (err)
		op_fail(b, OP_REFUSED, "cannot rename %s: %s", path, fdt_strerror(err));
	op_rewrite_lists(b, "/__fixups__", path, new, ":/", NULL);
	op_rewrite_lists(b, "/__symbols__", path, new, "/", NULL);
	op_fmt(b, lf, sizeof(lf), "/__local_fixups__%s", path);
	if (op_node(b, lf) >= 0) {
		while ((err = fdt_set_name(b->fdt, op_node(b, lf), name)) == -FDT_ERR_NOSPACE)
			op_grow(b);
		if (err)
			op_fail(b, OP_REFUSED, "cannot rename %s: %s", lf, fdt_strerror(err));
	}
}

/**
 * op_fixup_delete() - removes @loc ("PATH:PROP:OFFSET") from __fixups__
 * @b: the blob
 * @loc: the location
 *
 * A label left without locations loses its property (dtoverlay_delete_fixup()).
 */
void op_fixup_delete(struct op_blob *b, const char *loc)
{
	op_rewrite_lists(b, "/__fixups__", NULL, NULL, "", loc);
}

/* the __fixups__ label whose list has @loc, in @label, or 0 */
static int op_fixup_find(const struct op_blob *b, const char *loc, char *label, size_t n)
{
	int node = op_node(b, "/__fixups__"), off, len;
	const char *name, *val, *s;

	if (node < 0)
		return 0;
	fdt_for_each_property_offset(off, b->fdt, node) {
		val = fdt_getprop_by_offset(b->fdt, off, &name, &len);
		if (!val || len <= 0 || val[len - 1])
			continue;
		for (s = val; s < val + len; s += strlen(s) + 1) {
			if (!strcmp(s, loc)) {
				snprintf(label, n, "%s", name);
				return 1;
			}
		}
	}
	return 0;
}

/**
 * op_fixup_move() - makes the kernel patch @dst as it patches @src
 * @b: the blob
 * @src: a location of a cell literal in __overrides__
 * @dst: where that cell was written
 *
 * @dst loses the fixup it had; if @src is a label's (a cell literal <&label>),
 * @dst joins that label's list (dtoverlay_main.c's cell_changed_callback()).
 */
void op_fixup_move(struct op_blob *b, const char *src, const char *dst)
{
	char label[256];
	const char *val;
	char *list;
	int len;

	op_fixup_delete(b, dst);
	if (!op_fixup_find(b, src, label, sizeof(label)))
		return;
	val = fdt_getprop(b->fdt, op_node(b, "/__fixups__"), label, &len);
	list = malloc(len + strlen(dst) + 1);
	if (!val || !list)
		op_fail(b, OP_SYSTEM, "out of memory");
	memcpy(list, val, len);
	memcpy(list + len, dst, strlen(dst) + 1);
	op_setprop(b, "/__fixups__", label, list, len + (int)strlen(dst) + 1);
	free(list);
}

/**
 * op_rebase() - points __fixups__ and __symbols__ at @from's nodes to @to's
 * @b: the blob
 * @from: a node whose contents moved
 * @to: where they are now
 */
void op_rebase(struct op_blob *b, const char *from, const char *to)
{
	op_rewrite_lists(b, "/__fixups__", from, to, ":/", NULL);
	op_rewrite_lists(b, "/__symbols__", from, to, "/", NULL);
}

/**
 * op_make_path() - creates the nodes of @path that are missing
 * @b: the blob
 * @path: an absolute path
 */
void op_make_path(struct op_blob *b, const char *path)
{
	size_t i, len = strlen(path);
	char part[OP_PATH_MAX];
	char *name;
	int err;

	for (i = 1; i <= len; i++) {
		if (path[i] && path[i] != '/')
			continue;
		op_fmt(b, part, sizeof(part), "%.*s", (int)i, path);
		if (op_node(b, part) >= 0)
			continue;
		name = strrchr(part, '/');
		*name++ = 0;
		while ((err = fdt_add_subnode(b->fdt, op_node(b, *part ? part : "/"), name)) ==
		       -FDT_ERR_NOSPACE)
			op_grow(b);
		if (err < 0)
			op_fail(b, OP_REFUSED, "cannot add %s: %s", path, fdt_strerror(err));
	}
}
