// SPDX-License-Identifier: GPL-2.0
/*
 * A structural check of an overlay blob before the OF core sees it.
 *
 * The core checks the header (fdt_check_header()) and unflattens the
 * structure block leniently: a missing FDT_END, an unclosed node, an extra
 * FDT_END_NODE or a property given twice in one node are accepted, and the
 * overlay is applied from whatever was read. The loader refuses such blobs
 * with a message that says what is wrong and where, so that a damaged file
 * never changes the live tree.
 *
 * The walk also tells whether the core could fail to build the overlay's
 * changeset (precheck.c): only with two fragments or more (or labels, which
 * the core adds as one more), with #address-cells or #size-cells in an
 * overlay, which must not change a live node's, with a phandle on a node
 * that may exist with one of its own, or with sibling nodes whose names
 * differ only in case, which may be one live node. Otherwise every entry
 * is for a different node or property (names are unique in a node,
 * checked here) and the conflict check, which unflattens a copy, is not
 * needed.
 *
 * Some checks are about content, for values the OF core reads with strlen()
 * and so past the property if the final NUL is missing (KASAN:
 * slab-out-of-bounds, found by tests/guest/fuzz.sh on the debug lane): each
 * value of /__fixups__ (of_resolve_phandles()), and the string properties
 * that matching and device creation read (of_device_is_compatible() walks
 * "compatible" with of_prop_next_string(), for one). The offsets of
 * /__local_fixups__ are checked against the properties they name, as the
 * resolver finds them: its own bounds check wraps (fixups.c).
 * Nodes are named and found as the OF core does it: a name is what follows
 * its last '/' (kbasename()), special nodes are recognised without their
 * unit address (of_node_name_eq()), and the resolver and the changeset
 * build match node names ignoring case (of_node_cmp()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/libfdt.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>

#include "fdtcheck.h"
#include "internal.h"

/* A name in one node: a property or a child node */
struct ovpop_fdt_name {
	const char *name;
	u32 hash;			/* set when a node has many names */
	bool node;
};

/* Names of one node seen so far, checked for duplicates at its end */
struct ovpop_fdt_frame {
	struct ovpop_fdt_name *names;
	unsigned int n, cap;
	bool fixups;			/* the node is /__fixups__ */
};

/* A property name looked at, by its offset in the strings block */
struct ovpop_fdt_seen {
	u32 off1;			/* the offset + 1; 0: none */
	u8 kind;			/* OVPOP_FDT_STRING, OVPOP_FDT_CELLS */
};

#define OVPOP_FDT_SEEN		16

struct ovpop_fdt_walk {
	const char *blob;
	u32 off, end;			/* in the structure block */
	const char *strings;
	u32 strings_size;
	struct ovpop_fdt_frame stack[OVPOP_FDT_MAX_DEPTH];
	int depth;
	bool root_done;
	unsigned int fragments;		/* __overlay__ nodes of fragments */
	bool symbols, cells;		/* /__symbols__, #*-cells in an overlay */
	bool phandles;			/* a phandle on an overlay node */
	u32 root, local_fixups;		/* nodes; local_fixups 0: none */
	struct ovpop_fdt_shadow *shadow;
	unsigned int nshadow, shadow_cap;
	struct ovpop_fdt_seen seen[OVPOP_FDT_SEEN];
	unsigned int *slots;		/* hash table for the names of a node */
	unsigned int nslots;
	char *msg;
	size_t msg_len;
};

static bool ovpop_fdt_same(const struct ovpop_fdt_name *x,
			   const struct ovpop_fdt_name *y)
{
	return x->node == y->node && !strcmp(x->name, y->name);
}

/* As of_node_name_eq(): @name without its unit address is @what */
static bool ovpop_fdt_name_eq(const char *name, const char *what)
{
	size_t len;

	name = kbasename(name);
	len = strchrnul(name, '@') - name;
	return len == strlen(what) && !strncmp(name, what, len);
}

/* A hash of a node name that ovpop_fdt_same_node() names alike share */
static u32 ovpop_fdt_node_hash(const char *name)
{
	unsigned long hash = init_name_hash(NULL);

	for (name = kbasename(name); *name; name++)
		hash = partial_name_hash(tolower(*name), hash);
	return end_name_hash(hash);
}

/* Notes that node @x has the same name as its earlier sibling @y */
static int ovpop_fdt_shadowed(struct ovpop_fdt_walk *w,
			      const struct ovpop_fdt_name *x,
			      const struct ovpop_fdt_name *y)
{
	if (ovpop_grow((void **)&w->shadow, &w->shadow_cap, w->nshadow,
		       sizeof(*w->shadow)))
		return -ENOMEM;
	/* a node's name follows its 4-byte token */
	w->shadow[w->nshadow].node = x->name - 4 - w->blob;
	w->shadow[w->nshadow++].first = y->name - 4 - w->blob;
	return 0;
}

static int ovpop_fdt_add(struct ovpop_fdt_walk *w, const char *name, bool node)
{
	struct ovpop_fdt_frame *f = &w->stack[w->depth];

	if (ovpop_grow((void **)&f->names, &f->cap, f->n, sizeof(*f->names)))
		return -ENOMEM;
	f->names[f->n].name = name;
	f->names[f->n++].node = node;
	return 0;
}

/* The names of a node with many: a hash table of their indices + 1 */
static int ovpop_fdt_dup_hashed(struct ovpop_fdt_walk *w,
				struct ovpop_fdt_frame *f,
				const struct ovpop_fdt_name **dup)
{
	unsigned int size = roundup_pow_of_two(f->n * 2), i, s, *slots;
	struct ovpop_fdt_name *x, *y, *first;

	if (size > w->nslots) {
		kvfree(w->slots);
		w->nslots = 0;
		w->slots = kvmalloc_array(size, sizeof(*w->slots), GFP_KERNEL);
		if (!w->slots)
			return -ENOMEM;
		w->nslots = size;
	}
	slots = w->slots;
	memset(slots, 0, size * sizeof(*slots));
	for (i = 0; i < f->n; i++) {
		x = &f->names[i];
		x->hash = x->node ? ovpop_fdt_node_hash(x->name) | 1 :
			  full_name_hash(NULL, x->name, strlen(x->name)) & ~1U;
		first = NULL;
		for (s = x->hash & (size - 1); slots[s]; s = (s + 1) & (size - 1)) {
			y = &f->names[slots[s] - 1];
			if (y->hash != x->hash || y->node != x->node)
				continue;
			if (ovpop_fdt_same(y, x)) {
				*dup = x;
				return 0;
			}
			if (x->node && ovpop_fdt_same_node(y->name, x->name) &&
			    (!first || y < first))
				first = y;
		}
		if (first && ovpop_fdt_shadowed(w, x, first))
			return -ENOMEM;
		slots[s] = i + 1;
	}
	return 0;
}

/*
 * Sets *@dup to the first name of a frame given twice, or NULL, and notes
 * the nodes whose names differ only in case from an earlier sibling's
 */
static int ovpop_fdt_dup(struct ovpop_fdt_walk *w, struct ovpop_fdt_frame *f,
			 const struct ovpop_fdt_name **dup)
{
	const struct ovpop_fdt_name *x, *y, *first;
	unsigned int i, j;

	*dup = NULL;
	if (f->n > 8)
		return ovpop_fdt_dup_hashed(w, f, dup);
	/* a node's few names: pairwise */
	for (i = 1; i < f->n; i++) {
		x = &f->names[i];
		first = NULL;
		for (j = 0; j < i; j++) {
			y = &f->names[j];
			if (ovpop_fdt_same(y, x)) {
				*dup = x;
				return 0;
			}
			if (!first && x->node && y->node &&
			    ovpop_fdt_same_node(y->name, x->name))
				first = y;
		}
		if (first && ovpop_fdt_shadowed(w, x, first))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Ends the innermost node: its names must be unique. The frame keeps its
 * array for the next node at this depth (freed at the end of the walk).
 */
static int ovpop_fdt_close(struct ovpop_fdt_walk *w)
{
	struct ovpop_fdt_frame *f = &w->stack[w->depth];
	const struct ovpop_fdt_name *dup;

	if (ovpop_fdt_dup(w, f, &dup))
		return -ENOMEM;
	f->n = 0;
	f->fixups = false;
	if (--w->depth < 0)
		w->root_done = true;
	if (!dup)
		return 0;
	snprintf(w->msg, w->msg_len, "%s '%s' given twice in one node",
		 dup->node ? "child node" : "property", dup->name);
	return -EINVAL;
}

/* Properties that must be strings, in any node */
static const char * const ovpop_fdt_strings[] = {
	"compatible", "status", "device_type", "name", "target-path",
};

/* What the walk checks of a property, by its name */
#define OVPOP_FDT_STRING	BIT(0)	/* a string (list): ends in NUL */
#define OVPOP_FDT_CELLS		BIT(1)	/* #address-cells, #size-cells */
#define OVPOP_FDT_PHANDLE	BIT(2)	/* sets the node's phandle (fdt.c) */

static const char * const ovpop_fdt_phandles[] = {
	"phandle", "linux,phandle", "ibm,phandle",
};

/* A property value the core reads as string(s) ends in NUL */
static bool ovpop_fdt_unterminated(const struct ovpop_fdt_walk *w,
				   unsigned int kind, const char *value, u32 len)
{
	if (w->stack[w->depth].fixups)
		return len && value[len - 1];	/* an empty list is none */
	if (!(kind & OVPOP_FDT_STRING))
		return false;
	return !len || value[len - 1];
}

/* A NUL-terminated string at @s of at most @max bytes, or NULL */
static const char *ovpop_fdt_str(const char *s, u32 max)
{
	return max && memchr(s, '\0', max) ? s : NULL;
}

/*
 * The property name at @nameoff (< strings_size), or NULL if unterminated,
 * and in *@kind what to check of the property. A blob names thousands of
 * properties with a few names: each is looked at once, then found by its
 * offset.
 */
static const char *ovpop_fdt_prop_name(struct ovpop_fdt_walk *w, u32 nameoff,
				       unsigned int *kind)
{
	struct ovpop_fdt_seen *seen = &w->seen[nameoff % OVPOP_FDT_SEEN];
	const char *name;

	if (seen->off1 == nameoff + 1) {
		*kind = seen->kind;
		return w->strings + nameoff;
	}
	name = ovpop_fdt_str(w->strings + nameoff, w->strings_size - nameoff);
	if (!name)
		return NULL;
	*kind = 0;
	if (match_string(ovpop_fdt_strings, ARRAY_SIZE(ovpop_fdt_strings),
			 name) >= 0)
		*kind |= OVPOP_FDT_STRING;
	if (!strcmp(name, "#address-cells") || !strcmp(name, "#size-cells"))
		*kind |= OVPOP_FDT_CELLS;
	if (match_string(ovpop_fdt_phandles, ARRAY_SIZE(ovpop_fdt_phandles),
			 name) >= 0)
		*kind |= OVPOP_FDT_PHANDLE;
	seen->off1 = nameoff + 1;
	seen->kind = *kind;
	return name;
}

/* A node just begun at w->off, at w->depth: the ones the OF core looks for */
static void ovpop_fdt_special(struct ovpop_fdt_walk *w, const char *name)
{
	/* of_resolve_phandles() reads every root child named so */
	w->stack[w->depth].fixups = w->depth == 1 &&
				    ovpop_fdt_name_eq(name, "__fixups__");
	if (!w->depth)
		w->root = w->off;
	if (w->depth == 1 && ovpop_fdt_name_eq(name, "__symbols__"))
		w->symbols = true;
	if (w->depth == 1 && !w->local_fixups &&
	    ovpop_fdt_name_eq(name, "__local_fixups__"))
		w->local_fixups = w->off;
	if (w->depth == 2 && ovpop_fdt_name_eq(name, "__overlay__"))
		w->fragments++;
}

static int ovpop_fdt_bad(struct ovpop_fdt_walk *w, const char *what)
{
	snprintf(w->msg, w->msg_len, "%s at offset %u of the structure block",
		 what, w->off);
	return -EINVAL;
}

/* One token at w->off; returns 1 at FDT_END, 0 to go on, or an error */
static int ovpop_fdt_token(struct ovpop_fdt_walk *w)
{
	const char *p = w->blob + w->off;
	unsigned int kind;
	const char *name;
	u32 len, nameoff;

	if (w->off > w->end || w->end - w->off < 4)
		return ovpop_fdt_bad(w, "no FDT_END token");
	switch (be32_to_cpup((const __be32 *)p)) {
	case FDT_BEGIN_NODE:
		if (w->root_done)
			return ovpop_fdt_bad(w, "a second root node");
		name = ovpop_fdt_str(p + 4, w->end - w->off - 4);
		if (!name)
			return ovpop_fdt_bad(w, "unterminated node name");
		if (w->depth >= 0 && ovpop_fdt_add(w, name, true))
			return -ENOMEM;
		if (++w->depth >= OVPOP_FDT_MAX_DEPTH)
			return ovpop_fdt_bad(w, "nodes nested too deep");
		ovpop_fdt_special(w, name);
		w->off += 4 + ALIGN(strlen(name) + 1, 4);
		return 0;
	case FDT_END_NODE:
		if (w->depth < 0)
			return ovpop_fdt_bad(w, "FDT_END_NODE without a node");
		w->off += 4;
		return ovpop_fdt_close(w);
	case FDT_PROP:
		if (w->depth < 0 || w->end - w->off < 12)
			return ovpop_fdt_bad(w, "property outside a node or cut off");
		len = be32_to_cpup((const __be32 *)(p + 4));
		nameoff = be32_to_cpup((const __be32 *)(p + 8));
		if (len > w->end - w->off - 12)
			return ovpop_fdt_bad(w, "property value past the block");
		if (nameoff >= w->strings_size)
			return ovpop_fdt_bad(w, "property name outside the strings");
		name = ovpop_fdt_prop_name(w, nameoff, &kind);
		if (!name)
			return ovpop_fdt_bad(w, "unterminated property name");
		if (ovpop_fdt_unterminated(w, kind, p + 12, len))
			return ovpop_fdt_bad(w, "a string property without its final NUL");
		if (ovpop_fdt_add(w, name, false))
			return -ENOMEM;
		if (w->depth >= 2 && (kind & OVPOP_FDT_CELLS))
			w->cells = true;
		/* the node of a fragment's __overlay__ node and below */
		if (w->depth >= 3 && (kind & OVPOP_FDT_PHANDLE))
			w->phandles = true;
		w->off += 12 + ALIGN(len, 4);
		return 0;
	case FDT_NOP:
		w->off += 4;
		return 0;
	case FDT_END:
		if (w->depth >= 0)
			return ovpop_fdt_bad(w, "FDT_END inside a node");
		if (w->off + 4 != w->end)
			return ovpop_fdt_bad(w, "data after FDT_END");
		return 1;
	default:
		return ovpop_fdt_bad(w, "unknown token");
	}
}

/* Checks /__local_fixups__ of the blob the walk checked (fixups.c) */
static int ovpop_fdt_fixups(struct ovpop_fdt_walk *w)
{
	struct ovpop_fdt_checked c = {
		.blob = w->blob, .strings = w->strings,
		.root = w->root, .local_fixups = w->local_fixups,
		.shadow = w->shadow, .nshadow = w->nshadow,
		.msg = w->msg, .msg_len = w->msg_len,
	};

	return w->local_fixups ? ovpop_fixups_check(&c) : 0;
}

/**
 * ovpop_blob_check() - checks the structure of a flattened device tree
 * @blob: the blob; its magic and totalsize were checked
 * @size: its size (fdt_totalsize())
 * @msg: buffer for what is wrong
 * @msg_len: its size
 *
 * Return: 1 if the blob is well formed and the OF core could fail to build
 * its changeset (ovpop_precheck() has to look), 0 if well formed and it
 * cannot, -EINVAL with @msg set if not well formed or its /__local_fixups__
 * do not fit it, -ENOMEM.
 */
int ovpop_blob_check(const void *blob, size_t size, char *msg, size_t msg_len)
{
	struct ovpop_fdt_walk *w;
	u32 soff, ssize, toff, tsize;
	int ret, i;

	if (size < sizeof(struct fdt_header) || fdt_version(blob) < 17 ||
	    fdt_last_comp_version(blob) > 17) {
		snprintf(msg, msg_len, "format version %u (back to %u), not 17",
			 fdt_version(blob), fdt_last_comp_version(blob));
		return -EINVAL;
	}
	if (fdt_off_mem_rsvmap(blob) % 8 || fdt_off_mem_rsvmap(blob) > size ||
	    fdt_off_mem_rsvmap(blob) < sizeof(struct fdt_header)) {
		snprintf(msg, msg_len, "memory reservation map outside the blob");
		return -EINVAL;
	}
	soff = fdt_off_dt_struct(blob);
	ssize = fdt_size_dt_struct(blob);
	toff = fdt_off_dt_strings(blob);
	tsize = fdt_size_dt_strings(blob);
	/* tokens are read as aligned words: configfs and firmware buffers are */
	if (!IS_ALIGNED((unsigned long)blob, 4) || soff % 4 || soff > size || ssize > size - soff ||
	    toff > size || tsize > size - toff) {
		snprintf(msg, msg_len, "structure or strings block outside the blob");
		return -EINVAL;
	}

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->blob = blob;
	w->off = soff;
	w->end = soff + ssize;
	w->strings = (const char *)blob + toff;
	w->strings_size = tsize;
	w->depth = -1;
	w->msg = msg;
	w->msg_len = msg_len;
	do {
		ret = ovpop_fdt_token(w);
	} while (!ret);
	if (ret > 0)
		ret = ovpop_fdt_fixups(w) ?:
		      w->fragments > 1 || w->symbols || w->cells ||
		      w->phandles || w->nshadow;
	for (i = 0; i < OVPOP_FDT_MAX_DEPTH; i++)
		kfree(w->stack[i].names);
	kvfree(w->slots);
	kfree(w->shadow);
	kfree(w);
	return ret;
}
