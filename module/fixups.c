// SPDX-License-Identifier: GPL-2.0
/*
 * Checking /__local_fixups__ of an overlay blob against the blob, before
 * any resolver sees it (blob.c checked the structure): what
 * of_resolve_phandles() does with it (adjust_local_phandle_references() in
 * drivers/of/resolver.c, the same in 6.1 and 6.12). Its nodes mirror the
 * overlay's from the root, matched by name (node_name_cmp(): of_node_cmp()
 * on kbasename()s, the first sibling that matches); each property lists
 * the offsets of phandles in the overlay node's property of the same name
 * (other than "name", "phandle" and "linux,phandle"). The resolver refuses
 * a list whose length is not a non-zero multiple of 4, a missing node or
 * property, and an offset with "off + 4 > length", in 32 bits: 0xfffffffc
 * and above wrap and it writes up to 4 GiB past the property. It takes any
 * offset in bounds, aligned or not (dtc puts a phandle after a 3-byte
 * string at 3).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bsearch.h>
#include <linux/kernel.h>
#include <linux/libfdt.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stdarg.h>
#include <linux/string.h>

#include "fdtcheck.h"

/* A node of /__local_fixups__ being checked, and its overlay node */
struct ovpop_lfx_frame {
	u32 ov;			/* the overlay node */
	u32 body;		/* its first token after the name */
	u32 prop, child;	/* found last; 0: none yet */
	bool props;		/* the fixups node's properties go on */
};

static u32 ovpop_fdt_be32(const struct ovpop_fdt_checked *c, u32 off)
{
	return be32_to_cpup((const __be32 *)(c->blob + off));
}

/* The token at @off of the checked structure block; *@next: the next one */
static u32 ovpop_fdt_next(const struct ovpop_fdt_checked *c, u32 off,
			  u32 *next)
{
	u32 tag = ovpop_fdt_be32(c, off);

	if (tag == FDT_BEGIN_NODE)
		*next = off + 4 + ALIGN(strlen(c->blob + off + 4) + 1, 4);
	else if (tag == FDT_PROP)
		*next = off + 12 + ALIGN(ovpop_fdt_be32(c, off + 4), 4);
	else
		*next = off + 4;
	return tag;
}

/*
 * The first property (@node false) or child node of a node at or after
 * @off, as the OF core sees them: properties are the ones before the first
 * child (fdt_next_property_offset()), children are anywhere; 0 if none
 */
static u32 ovpop_fdt_entry(const struct ovpop_fdt_checked *c, u32 off,
			   bool node)
{
	u32 tag, next;

	for (;; off = next) {
		tag = ovpop_fdt_next(c, off, &next);
		if (tag == FDT_NOP || (node && tag == FDT_PROP))
			continue;
		return tag == (node ? FDT_BEGIN_NODE : FDT_PROP) ? off : 0;
	}
}

/* The entry after the property or node at @off */
static u32 ovpop_fdt_entry_next(const struct ovpop_fdt_checked *c, u32 off,
				bool node)
{
	int depth = 0;
	u32 tag;

	do {
		tag = ovpop_fdt_next(c, off, &off);
		depth += (tag == FDT_BEGIN_NODE) - (tag == FDT_END_NODE);
	} while (depth > 0);
	return ovpop_fdt_entry(c, off, node);
}

static const char *ovpop_fdt_entry_name(const struct ovpop_fdt_checked *c,
					u32 off, bool node)
{
	return node ? c->blob + off + 4 :
		      c->strings + ovpop_fdt_be32(c, off + 8);
}

static int ovpop_fdt_shadow_cmp(const void *a, const void *b)
{
	const struct ovpop_fdt_shadow *x = a, *y = b;

	return (x->node > y->node) - (x->node < y->node);
}

/* The first sibling of node @off whose name is the same to the OF core */
static u32 ovpop_fdt_unshadow(const struct ovpop_fdt_checked *c, u32 off)
{
	struct ovpop_fdt_shadow key = { .node = off }, *sh;

	sh = bsearch(&key, c->shadow, c->nshadow, sizeof(key),
		     ovpop_fdt_shadow_cmp);
	return sh ? sh->first : off;
}

/*
 * The first property (@node false) or child named @name from @from, before
 * @stop (0: to the end of the node), or 0
 */
static u32 ovpop_lfx_scan(const struct ovpop_fdt_checked *c, u32 from,
			  u32 stop, const char *name, bool node)
{
	const char *n;
	u32 off;

	for (off = ovpop_fdt_entry(c, from, node); off && off != stop;
	     off = ovpop_fdt_entry_next(c, off, node)) {
		n = ovpop_fdt_entry_name(c, off, node);
		if (node ? ovpop_fdt_same_node(n, name) : !strcmp(n, name))
			return off;
	}
	return 0;
}

/*
 * The property (@node false) or child named @name of the node whose
 * entries begin at @body, as the resolver finds it, or 0. dtc writes
 * __local_fixups__ in the overlay's order, so the search begins at the
 * one found last (*@last) and wraps around. Property names are unique in a
 * node (checked); of siblings named alike but for case the resolver takes
 * the first.
 */
static u32 ovpop_lfx_find(const struct ovpop_fdt_checked *c, u32 body,
			  u32 *last, const char *name, bool node)
{
	u32 off;

	off = ovpop_lfx_scan(c, *last ?: body, 0, name, node);
	if (!off && *last)
		off = ovpop_lfx_scan(c, body, *last, name, node);
	if (!off)
		return 0;
	*last = off;
	return node ? ovpop_fdt_unshadow(c, off) : off;
}

/* The overlay node of frame @f, for messages */
static const char *ovpop_lfx_node_name(const struct ovpop_fdt_checked *c,
				       const struct ovpop_lfx_frame *f)
{
	const char *name = ovpop_fdt_entry_name(c, f->ov, true);

	return *name ? name : "/";
}

/* What is wrong, in @c->msg: -EINVAL */
static __printf(2, 3) int ovpop_lfx_bad(struct ovpop_fdt_checked *c,
					const char *fmt, ...)
{
	size_t n = scnprintf(c->msg, c->msg_len, "__local_fixups__: ");
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->msg + n, c->msg_len - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The offsets of the property at @off of the fixups node of @f */
static int ovpop_lfx_prop(struct ovpop_fdt_checked *c,
			  struct ovpop_lfx_frame *f, u32 off)
{
	const char *name = ovpop_fdt_entry_name(c, off, false);
	u32 len = ovpop_fdt_be32(c, off + 4), plen, o, i, p;

	if (!strcmp(name, "name") || !strcmp(name, "phandle") ||
	    !strcmp(name, "linux,phandle"))
		return 0;
	if (!len || len % 4)
		return ovpop_lfx_bad(c, "%s of %s is %u bytes, not offsets",
				     name, ovpop_lfx_node_name(c, f), len);
	p = ovpop_lfx_find(c, f->body, &f->prop, name, false);
	if (!p)
		return ovpop_lfx_bad(c, "no property %s in %s", name,
				     ovpop_lfx_node_name(c, f));
	plen = ovpop_fdt_be32(c, p + 4);
	for (i = 0; i < len; i += 4) {
		o = ovpop_fdt_be32(c, off + 12 + i);
		if ((u64)o + 4 > plen)
			return ovpop_lfx_bad(c, "offset %#x past the %u bytes of %s in %s",
					     o, plen, name,
					     ovpop_lfx_node_name(c, f));
	}
	return 0;
}

/*
 * Begins the check of fixups node @off at @depth, frame @f; @up is the
 * frame of its parent (NULL: @off is /__local_fixups__, for the root)
 */
static int ovpop_lfx_enter(struct ovpop_fdt_checked *c, u32 off,
			   struct ovpop_lfx_frame *f,
			   struct ovpop_lfx_frame *up)
{
	const char *name = ovpop_fdt_entry_name(c, off, true);

	if (!up) {
		f->ov = c->root;
	} else {
		up->props = false;
		f->ov = ovpop_lfx_find(c, up->body, &up->child, name, true);
		if (!f->ov)
			return ovpop_lfx_bad(c, "no node %s in %s",
					     kbasename(name),
					     ovpop_lfx_node_name(c, up));
	}
	ovpop_fdt_next(c, f->ov, &f->body);
	f->prop = 0;
	f->child = 0;
	f->props = true;
	return 0;
}

/**
 * ovpop_fixups_check() - checks /__local_fixups__ against the overlay
 * @c: the blob, its structure checked; @c->local_fixups is not 0
 *
 * Walks /__local_fixups__ and the overlay from its root in parallel, as
 * the resolver does. Sorts @c->shadow.
 *
 * Return: 0 if the resolver takes every entry, -EINVAL with @c->msg set if
 * it would refuse one or write past a property, -ENOMEM.
 */
int ovpop_fixups_check(struct ovpop_fdt_checked *c)
{
	u32 off = c->local_fixups, tag, next;
	struct ovpop_lfx_frame *f;
	int depth = -1, ret = 0;

	f = kmalloc_array(OVPOP_FDT_MAX_DEPTH, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	sort(c->shadow, c->nshadow, sizeof(*c->shadow), ovpop_fdt_shadow_cmp,
	     NULL);
	/* the structure nests less than OVPOP_FDT_MAX_DEPTH deep (blob.c) */
	do {
		tag = ovpop_fdt_next(c, off, &next);
		if (tag == FDT_BEGIN_NODE) {
			depth++;
			ret = ovpop_lfx_enter(c, off, &f[depth],
					      depth ? &f[depth - 1] : NULL);
		} else if (tag == FDT_PROP && f[depth].props) {
			ret = ovpop_lfx_prop(c, &f[depth], off);
		} else if (tag == FDT_END_NODE) {
			depth--;
		}
		off = next;
	} while (!ret && depth >= 0);
	kfree(f);
	return ret;
}
