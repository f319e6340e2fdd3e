// SPDX-License-Identifier: GPL-2.0
/*
 * What a layer (an overlay applied through configfs) records of its
 * changeset entries, in about 16 bytes per node and 8 more for a node due a
 * device (stack.c says what for):
 *
 * - for every node, in the order notified, a 64-bit hash of its full name
 *   and the number of entries notified on it in a row (what holds the
 *   node when the overlay is removed: release.c);
 * - the "tops": the recorded nodes that are not below the last top (most
 *   are children of a fragment's target, then their subtrees follow), as a
 *   hash and the index of their parent's full name, which consecutive tops
 *   share. Every recorded node is at or below a top, so two layers have
 *   nodes where one is at or below the other (the OF core's rule for
 *   removal) exactly when two of their tops do.
 *
 * - the nodes the overlay added or enabled, due a device, as pointers in
 *   the changeset's order: the devices report (report.c) reads them under
 *   ovpop_stack_lock while the overlay is applied, which keeps them alive.
 *
 * Otherwise hashes, not node pointers or references: an overlay's nodes
 * must be free of extra references when it is removed, and a pointer could
 * be reused.
 * Two full names of one layer with the same hash would at worst make a
 * removal wait for a wrong count of references (siphash-2-4, fixed key:
 * the names are the overlay author's, and a collision is only that).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bsearch.h>
#include <linux/minmax.h>
#include <linux/of.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "internal.h"
#include "layer.h"

static const siphash_key_t ovpop_path_key = {
	{ 0x6f7670706f702d6bULL, 0x2d6c617965722d31ULL }
};

static u64 ovpop_path_hash(const char *path, size_t len)
{
	return siphash(path, len, &ovpop_path_key);
}

/*
 * A node's full name, as layers hash it: what "%pOF" prints, "/" for the
 * root. Built from the names up the parent pointers, which stay while the
 * node is held ("%pOF" walks them again for every component, under
 * devtree_lock each time). ovpop_name_len() is its length without the NUL.
 */
static size_t ovpop_name_len(const struct device_node *np)
{
	size_t len = 0;

	for (; np->parent; np = np->parent)
		len += 1 + strlen(kbasename(np->full_name));
	return len ?: 1;
}

/* Writes it to @buf, of ovpop_name_len() + 1 bytes */
static void ovpop_name_fill(const struct device_node *np, char *buf, size_t len)
{
	char *end = buf + len;
	size_t n;

	*end = '\0';
	if (!np->parent) {
		buf[0] = '/';
		return;
	}
	for (; np->parent; np = np->parent) {
		n = strlen(kbasename(np->full_name));
		end -= n;
		memcpy(end, kbasename(np->full_name), n);
		*--end = '/';
	}
}

#define OVPOP_NAME_BUF	128

/*
 * The full name in @buf (OVPOP_NAME_BUF bytes) if it fits, else kmalloc()ed
 * (NULL without memory); its length in *@len. Give it back with
 * ovpop_name_put().
 */
static char *ovpop_name_get(const struct device_node *np, char *buf,
			    size_t *len)
{
	char *s = buf;

	*len = ovpop_name_len(np);
	if (*len >= OVPOP_NAME_BUF) {
		s = kmalloc(*len + 1, GFP_KERNEL);
		if (!s)
			return NULL;
	}
	ovpop_name_fill(np, s, *len);
	return s;
}

static void ovpop_name_put(char *name, char *buf)
{
	if (name != buf)
		kfree(name);
}

/* The hash of @np's full name in *@hash: 0, or -ENOMEM */
static int ovpop_node_hash(const struct device_node *np, u64 *hash)
{
	char buf[OVPOP_NAME_BUF], *name;
	size_t len;

	name = ovpop_name_get(np, buf, &len);
	if (!name)
		return -ENOMEM;
	*hash = ovpop_path_hash(name, len);
	ovpop_name_put(name, buf);
	return 0;
}

/**
 * ovpop_grow() - makes room for one more element in an array, doubling it
 * @arr: the array (krealloc()ed; NULL at first)
 * @size: its number of elements allocated, updated
 * @n: the index of the element to make room for
 * @elem: the size of an element
 *
 * Return: 0, or -ENOMEM (the array is left as it was).
 */
int ovpop_grow(void **arr, unsigned int *size, unsigned int n, size_t elem)
{
	unsigned int nsize;
	void *p;

	if (n < *size)
		return 0;
	nsize = max(2 * *size, 16U);
	p = krealloc_array(*arr, nsize, elem, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*size = nsize;
	return 0;
}

/* @top is @np or one of its ancestors; @top is compared, not dereferenced */
static bool ovpop_node_covers(const struct device_node *top,
			      const struct device_node *np)
{
	for (; np; np = np->parent)
		if (np == top)
			return true;
	return false;
}

static int ovpop_layer_add_top(struct ovpop_layer *l, const char *path,
			       u64 hash)
{
	const char *slash = strrchr(path, '/');
	size_t plen = slash == path ? 1 : slash - path;
	unsigned int pi = l->nparents;
	char *s;

	if (pi && strlen(l->parents[pi - 1]) == plen &&
	    !strncmp(l->parents[pi - 1], path, plen)) {
		pi--;
	} else {
		if (ovpop_grow((void **)&l->parents, &l->parents_size, pi,
			       sizeof(*l->parents)))
			return -ENOMEM;
		s = kstrndup(path, plen, GFP_KERNEL);
		if (!s)
			return -ENOMEM;
		l->parents[l->nparents++] = s;
	}
	if (ovpop_grow((void **)&l->tops, &l->tops_size, l->ntops,
		       sizeof(*l->tops)))
		return -ENOMEM;
	l->tops[l->ntops].hash = hash;
	l->tops[l->ntops++].parent = pi;
	return 0;
}

/**
 * ovpop_layer_add() - records the first of a run of entries on a node
 * @l: the recording layer
 * @np: the node
 *
 * Return: 0, or -ENOMEM (the caller marks the record incomplete).
 */
int ovpop_layer_add(struct ovpop_layer *l, struct device_node *np)
{
	char buf[OVPOP_NAME_BUF], *path;
	size_t len;
	u64 hash;
	int ret;

	path = ovpop_name_get(np, buf, &len);
	if (!path)
		return -ENOMEM;
	hash = ovpop_path_hash(path, len);
	ret = ovpop_grow((void **)&l->nodes, &l->size, l->nnodes,
			 sizeof(*l->nodes));
	if (!ret && !(l->top && ovpop_node_covers(l->top, np))) {
		ret = ovpop_layer_add_top(l, path, hash);
		if (!ret)
			l->top = np;
	}
	ovpop_name_put(path, buf);
	if (ret)
		return ret;
	l->last = np;
	l->nodes[l->nnodes].hash = hash;
	l->nodes[l->nnodes].attached = false;
	l->nodes[l->nnodes++].entries = 1;
	return 0;
}

/**
 * ovpop_layer_add_end() - frees what only recording needs
 * @l: the layer
 */
void ovpop_layer_add_end(struct ovpop_layer *l)
{
	l->top = NULL;
}

static int ovpop_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The hashes of @l's tops, sorted; NULL without memory */
static u64 *ovpop_top_hashes(const struct ovpop_layer *l)
{
	unsigned int i;
	u64 *h;

	h = kvmalloc_array(max(l->ntops, 1U), sizeof(*h), GFP_KERNEL);
	if (!h)
		return NULL;
	for (i = 0; i < l->ntops; i++)
		h[i] = l->tops[i].hash;
	sort(h, l->ntops, sizeof(*h), ovpop_u64_cmp, NULL);
	return h;
}

static bool ovpop_hash_in(u64 hash, const u64 *sorted, unsigned int n)
{
	return bsearch(&hash, sorted, n, sizeof(*sorted), ovpop_u64_cmp);
}

/* @path or one of its ancestors has a hash in @sorted */
static bool ovpop_prefix_in(const char *path, const u64 *sorted,
			    unsigned int n)
{
	size_t i, len = strlen(path);

	if (ovpop_hash_in(ovpop_path_hash("/", 1), sorted, n))
		return true;
	for (i = 2; i <= len; i++)
		if ((i == len || path[i] == '/') &&
		    ovpop_hash_in(ovpop_path_hash(path, i), sorted, n))
			return true;
	return false;
}

/* A top of @b is at or below a top of @a */
static bool ovpop_tops_below(const struct ovpop_layer *a,
			     const struct ovpop_layer *b)
{
	unsigned int i, parent = UINT_MAX;
	bool hit = false;
	u64 *ha;

	ha = ovpop_top_hashes(a);
	if (!ha)
		return true;	/* cannot tell: as for an incomplete record */
	for (i = 0; i < b->ntops && !hit; i++) {
		hit = ovpop_hash_in(b->tops[i].hash, ha, a->ntops);
		/* consecutive tops share their parent: look it up once */
		if (!hit && b->tops[i].parent != parent) {
			parent = b->tops[i].parent;
			hit = ovpop_prefix_in(b->parents[parent], ha, a->ntops);
		}
	}
	kvfree(ha);
	return hit;
}

/**
 * ovpop_layer_covers() - the core would refuse to remove @l under @later
 * @later: a layer applied after @l
 * @l: the layer
 *
 * The core compares live nodes; full names compare the same, as both
 * layers are applied.
 *
 * Return: true when a node of one has an entry at or below a node of the
 * other's, or when either record is incomplete.
 */
bool ovpop_layer_covers(const struct ovpop_layer *later,
			const struct ovpop_layer *l)
{
	if (later->all || l->all)
		return true;
	return ovpop_tops_below(later, l) || ovpop_tops_below(l, later);
}

/**
 * ovpop_layer_entries() - how many changeset entries a layer has on a node
 * @l: the layer
 * @np: the node
 * @hint: where to start looking, updated; 0 at first. Removal notifies the
 *	  nodes in the reverse order of the apply, so looking backwards from
 *	  the last one found makes a whole removal linear.
 *
 * Return: the number of entries notified in a row for @np, or 0 if it is
 * not recorded (or the record is incomplete).
 */
unsigned int ovpop_layer_entries(const struct ovpop_layer *l,
				 const struct device_node *np, unsigned int *hint)
{
	unsigned int i, k;
	u64 hash;

	if (l->all || !l->nnodes || ovpop_node_hash(np, &hash))
		return 0;
	for (k = 0; k < l->nnodes; k++) {
		i = (*hint + l->nnodes - k) % l->nnodes;
		if (l->nodes[i].hash == hash) {
			*hint = i;
			return l->nodes[i].entries;
		}
	}
	return 0;
}

/**
 * ovpop_layer_first() - is a node that of the layer's first entry
 * @l: the layer
 * @np: the node
 *
 * Return: true if @np is the node the layer's first changeset entry was
 * on (the last one a removal notifies); false if not, or not known.
 */
bool ovpop_layer_first(const struct ovpop_layer *l,
		       const struct device_node *np)
{
	u64 hash;

	return !l->all && l->nnodes && !ovpop_node_hash(np, &hash) &&
	       l->nodes[0].hash == hash;
}

/**
 * ovpop_layer_bytes() - the memory a layer's record takes
 * @l: the layer
 *
 * Return: the bytes allocated for it (ksize(): the allocator's rounding
 * included).
 */
size_t ovpop_layer_bytes(const struct ovpop_layer *l)
{
	size_t bytes = 0;
	unsigned int i;

	bytes += l->nodes ? ksize(l->nodes) : 0;
	bytes += l->added ? ksize(l->added) : 0;
	bytes += l->tops ? ksize(l->tops) : 0;
	bytes += l->parents ? ksize(l->parents) : 0;
	for (i = 0; i < l->nparents; i++)
		bytes += ksize(l->parents[i]);
	return bytes;
}

/**
 * ovpop_layer_clear() - frees what a layer recorded
 * @l: a layer not in the stack
 */
void ovpop_layer_clear(struct ovpop_layer *l)
{
	ovpop_layer_add_end(l);
	of_node_put(l->refused_by);
	l->refused_by = NULL;
	while (l->nparents)
		kfree(l->parents[--l->nparents]);
	kfree(l->parents);
	kfree(l->tops);
	kfree(l->nodes);
	kfree(l->added);
	l->parents = NULL;
	l->tops = NULL;
	l->nodes = NULL;
	l->added = NULL;
	l->nnodes = 0;
	l->size = 0;
	l->nadded = 0;
	l->added_size = 0;
	l->ntops = 0;
	l->tops_size = 0;
	l->parents_size = 0;
	l->last = NULL;
	l->all = false;
	kfree(l->err_node);
	l->err_node = NULL;
	l->err = 0;
}
