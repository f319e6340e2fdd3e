// SPDX-License-Identifier: GPL-2.0
/*
 * Refusing overlays whose changeset the OF core would fail to build.
 *
 * of_overlay_fdt_apply() registers an overlay before it builds its
 * changeset. If the build fails, the half-built changeset stays in the
 * core's list: of_overlay_remove() fails to revert entries that were never
 * applied ("Error reverting changeset"), its memory is lost, and its entries
 * block the removal of every overlay applied before it that they cover (an
 * entry on / blocks them all). So the loader looks for what fails the
 * build first, on a resolved copy of the overlay and by the core's rules
 * (drivers/of/overlay.c, the same in 6.1 and 6.12), and refuses the overlay
 * with what conflicts. build_changeset() fails, other than for memory, when
 * - a fragment changes #address-cells or #size-cells of a live node
 *   (add_changeset_property());
 * - an overlay node and the live node of the same name (of_node_cmp(): case
 *   does not count) both have a phandle (add_changeset_node());
 * - a label is in the live tree already, or its path in the overlay's
 *   __symbols__ does not lead into a fragment's __overlay__ node (then
 *   dup_and_fixup_symbol_prop() returns NULL: -ENOMEM);
 * - two entries are for the same node, or the same property of a node
 *   (changeset_dup_entry_check(): their nodes' full paths compare equal).
 * Errors the core finds before the build (an unresolved label, a missing
 * target) are left to the core: it fails them without side effects. The
 * loader runs this only for overlays that can conflict at all (blob.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/of.h>
#include <linux/of_fdt.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "compat.h"
#include "internal.h"

/* A changeset entry the core would make: a node added, or a property set */
struct ovpop_pc_entry {
	const char *path;	/* one of ovpop_pc.paths */
	const char *prop;	/* NULL: the node is added */
};

struct ovpop_pc {
	struct ovpop_pc_entry *e;
	unsigned int n, size;
	char **paths;		/* the entries' paths, freed at the end */
	unsigned int npaths, paths_size;
	char *msg;
	size_t msg_len;
};

/* Takes @path (kmalloc()ed, or NULL) for the entries: 0 or -ENOMEM */
static int ovpop_pc_keep(struct ovpop_pc *pc, char *path)
{
	if (!path || ovpop_grow((void **)&pc->paths, &pc->paths_size,
				pc->npaths, sizeof(*pc->paths))) {
		kfree(path);
		return -ENOMEM;
	}
	pc->paths[pc->npaths++] = path;
	return 0;
}

static int ovpop_pc_add(struct ovpop_pc *pc, const char *path, const char *prop)
{
	if (ovpop_grow((void **)&pc->e, &pc->size, pc->n, sizeof(*pc->e)))
		return -ENOMEM;
	pc->e[pc->n].path = path;
	pc->e[pc->n++].prop = prop;
	return 0;
}

/* The core skips these on nodes of the live tree */
static bool ovpop_pc_skipped(const char *name)
{
	return !strcmp(name, "name") || !strcmp(name, "phandle") ||
	       !strcmp(name, "linux,phandle");
}

/*
 * An overlay property @p on live node @live at @path whose property @lp has
 * that name: for #address-cells and #size-cells the values must be equal,
 * and make no entry (1); other properties make one (0)
 */
static int ovpop_pc_cells(struct ovpop_pc *pc, const struct property *p,
			  const struct property *lp, const char *path)
{
	if (!lp || (strcmp(p->name, "#address-cells") &&
		    strcmp(p->name, "#size-cells")))
		return 0;
	if (lp->length == p->length && !memcmp(lp->value, p->value, p->length))
		return 1;
	snprintf(pc->msg, pc->msg_len, "changes %s of %s", p->name, path);
	return -EINVAL;
}

/*
 * As __of_find_node_by_path(), which is not exported: the child of @parent
 * named exactly as @path up to its first '/' or ':' (a reference), or NULL
 */
static struct device_node *ovpop_pc_child(struct device_node *parent,
					  const char *path)
{
	size_t len = strcspn(path, "/:");
	struct device_node *child;
	const char *name;

	if (!len)
		return NULL;
	for_each_child_of_node(parent, child) {
		name = kbasename(child->full_name);
		if (strlen(name) == len && !strncmp(path, name, len))
			return child;
	}
	return NULL;
}

/*
 * As dup_and_fixup_symbol_prop(): the path of a label in the overlay's
 * __symbols__ (a string) leads, from its second character, to a fragment
 * and its __overlay__ node (the one the core took for the fragment), and
 * is at least as long as that node's path
 */
static bool ovpop_pc_symbol_ok(struct device_node *root,
			       const struct property *p)
{
	struct device_node *frag, *ov = NULL, *first = NULL;
	const char *path = p->value;
	bool ok = false;

	if (!p->length || strnlen(path, p->length) >= p->length || !*path)
		return false;
	frag = ovpop_pc_child(root, path + 1);
	if (frag) {
		ov = ovpop_pc_child(frag, "__overlay__/");
		first = of_get_child_by_name(frag, "__overlay__");
	}
	if (ov && ov == first)
		ok = snprintf(NULL, 0, "%pOF", ov) <= strlen(path);
	of_node_put(first);
	of_node_put(ov);
	of_node_put(frag);
	return ok;
}

/* Label @p, @lp the live one of that name, if any: its entry, or -EINVAL */
static int ovpop_pc_symbol(struct ovpop_pc *pc, struct device_node *root,
			   const struct property *p, const struct property *lp,
			   const char *path)
{
	if (lp) {
		snprintf(pc->msg, pc->msg_len,
			 "label %s is in the live tree already", p->name);
		return -EINVAL;
	}
	if (!ovpop_pc_symbol_ok(root, p)) {
		snprintf(pc->msg, pc->msg_len,
			 "label %s: its path is not in a fragment's overlay",
			 p->name);
		return -EINVAL;
	}
	return ovpop_pc_add(pc, path, p->name);
}

/*
 * Properties of @ov set on @live (NULL: a new node, no conflict of its
 * own), as add_changeset_property(); @root is the overlay's root if @ov is
 * its __symbols__, else NULL
 */
static int ovpop_pc_props(struct ovpop_pc *pc, struct device_node *ov,
			  struct device_node *live, const char *path,
			  struct device_node *root)
{
	struct property *p, *lp;
	int ret;

	if (!live)
		return 0;
	for_each_property_of_node(ov, p) {
		if (ovpop_pc_skipped(p->name))
			continue;
		lp = of_find_property(live, p->name, NULL);
		ret = ovpop_pc_cells(pc, p, lp, path);
		if (!ret)
			ret = root ? ovpop_pc_symbol(pc, root, p, lp, path) :
				     ovpop_pc_add(pc, path, p->name);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The child of @live that @ov names (a reference), as add_changeset_node() */
static struct device_node *ovpop_pc_live_child(struct device_node *live,
					       struct device_node *ov)
{
	const char *name = kbasename(ov->full_name);
	struct device_node *child;

	if (!live)
		return NULL;
	for_each_child_of_node(live, child)
		if (!of_node_cmp(name, kbasename(child->full_name)))
			return child;
	return NULL;
}

/*
 * Overlay node @child at live node @lchild (NULL: a new node), as
 * add_changeset_node(): both may not have a phandle
 */
static int ovpop_pc_phandles(struct ovpop_pc *pc, struct device_node *child,
			     struct device_node *lchild, const char *cpath)
{
	if (!lchild)
		return ovpop_pc_add(pc, cpath, NULL);
	if (!child->phandle || !lchild->phandle)
		return 0;
	snprintf(pc->msg, pc->msg_len,
		 "%s has a phandle in the live tree and one in the overlay",
		 cpath);
	return -EINVAL;
}

/*
 * The entries of overlay node @ov applied at @path (@live, if it exists).
 * The paths are those the core prints for the entries' nodes (%pOF): an
 * existing node by its live name, which may differ in case from the
 * overlay's.
 */
static int ovpop_pc_walk(struct ovpop_pc *pc, struct device_node *ov,
			 struct device_node *live, const char *path)
{
	struct device_node *child, *lchild;
	char *cpath;
	int ret;

	ret = ovpop_pc_props(pc, ov, live, path, NULL);
	for_each_child_of_node(ov, child) {
		if (ret) {
			of_node_put(child);
			break;
		}
		lchild = ovpop_pc_live_child(live, child);
		cpath = kasprintf(GFP_KERNEL, "%s/%s", strcmp(path, "/") ? path : "",
				  kbasename((lchild ?: child)->full_name));
		ret = ovpop_pc_keep(pc, cpath) ?:
		      ovpop_pc_phandles(pc, child, lchild, cpath) ?:
		      ovpop_pc_walk(pc, child, lchild, cpath);
		of_node_put(lchild);
	}
	return ret;
}

/* As find_target(): a reference to the live node, or NULL */
static struct device_node *ovpop_pc_target(struct device_node *frag,
					   struct device_node *base)
{
	struct device_node *np;
	const char *path;
	char *full;
	u32 val;

	if (!of_property_read_u32(frag, "target", &val))
		return of_find_node_by_phandle(val);
	if (of_property_read_string(frag, "target-path", &path))
		return NULL;
	if (!base)
		return of_find_node_by_path(path);
	full = kasprintf(GFP_KERNEL, "%pOF%s", base, path);
	if (!full)
		return NULL;
	np = of_find_node_by_path(full);
	kfree(full);
	return np;
}

/* Labels: the entries on the live /__symbols__ */
static int ovpop_pc_symbols(struct ovpop_pc *pc, struct device_node *root)
{
	struct device_node *ov, *live;
	int ret = 0;

	ov = of_get_child_by_name(root, "__symbols__");
	live = of_find_node_by_path("/__symbols__");
	if (!ov || !live)
		goto out;	/* no labels, or the core refuses them early */
	ret = ovpop_pc_keep(pc, kstrdup("/__symbols__", GFP_KERNEL));
	if (!ret)
		ret = ovpop_pc_props(pc, ov, live, pc->paths[pc->npaths - 1],
				     root);
out:
	of_node_put(live);
	of_node_put(ov);
	return ret;
}

/*
 * The fragments' entries: 1 if a target is missing (the core refuses the
 * overlay before it builds anything), else 0 or an error.
 */
static int ovpop_pc_fragments(struct ovpop_pc *pc, struct device_node *root,
			      struct device_node *base)
{
	struct device_node *frag, *ov, *target;
	char *path;
	int ret = 0;

	for_each_child_of_node(root, frag) {
		ov = of_get_child_by_name(frag, "__overlay__");
		if (!ov)
			continue;
		target = ovpop_pc_target(frag, base);
		/* %pOF prints the root as "" */
		path = !target ? NULL : target->parent ?
			kasprintf(GFP_KERNEL, "%pOF", target) : kstrdup("/", GFP_KERNEL);
		if (!target)
			ret = 1;
		else
			ret = ovpop_pc_keep(pc, path);
		if (!ret)
			ret = ovpop_pc_walk(pc, ov, target, path);
		of_node_put(target);
		of_node_put(ov);
		if (ret) {
			of_node_put(frag);
			break;
		}
	}
	return ret;
}

/*
 * find_dup_cset_node_entry() and find_dup_cset_prop() take two entries for
 * the same node when of_node_cmp() finds their names alike and their full
 * paths (%pOF) are equal, compared exactly; property names are compared
 * exactly (of_prop_cmp()). The entries' paths here are those paths.
 */
static int ovpop_pc_cmp(const void *a, const void *b)
{
	const struct ovpop_pc_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (!x->prop || !y->prop)
		return !!x->prop - !!y->prop;
	return strcmp(x->prop, y->prop);
}

/* As changeset_dup_entry_check(): one entry per node and per property */
static int ovpop_pc_dups(struct ovpop_pc *pc)
{
	struct ovpop_pc_entry *e = pc->e;
	unsigned int i;

	sort(e, pc->n, sizeof(*e), ovpop_pc_cmp, NULL);
	for (i = 1; i < pc->n; i++) {
		if (ovpop_pc_cmp(&e[i - 1], &e[i]))
			continue;
		if (e[i].prop)
			snprintf(pc->msg, pc->msg_len,
				 "two fragments set %s of %s", e[i].prop, e[i].path);
		else
			snprintf(pc->msg, pc->msg_len,
				 "two fragments add %s", e[i].path);
		return -EINVAL;
	}
	return 0;
}

/**
 * ovpop_precheck() - finds what would make the core fail to build an overlay
 * @blob: the overlay, checked by ovpop_blob_check(); not changed
 * @size: its size
 * @base: the node target-path properties are relative to, or NULL
 * @msg: buffer for the conflict
 * @msg_len: its size
 *
 * Works on a copy: unflattened, its phandles resolved against the live
 * tree. The caller holds ovpop_stack_lock, so no apply through the loader
 * changes the live tree meanwhile.
 *
 * Return: 0 if the core can build the overlay's changeset, or if it will
 * refuse the overlay before building it; -EINVAL with @msg set for a
 * conflict; -ENOMEM.
 */
int ovpop_precheck(const void *blob, size_t size, struct device_node *base,
		   char *msg, size_t msg_len)
{
	struct ovpop_pc pc = { .msg = msg, .msg_len = msg_len };
	struct device_node *root = NULL;
	void *copy, *mem;
	int ret;

	lockdep_assert_held(&ovpop_stack_lock);
	copy = kmemdup(blob, size, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	mem = of_fdt_unflatten_tree(copy, NULL, &root);
	if (!root) {
		ret = 0;			/* the core will say */
		goto out_mem;
	}
	ret = of_resolve_phandles(root);
	if (ret) {
		ret = 0;			/* refused before the build */
		goto out_mem;
	}
	ret = ovpop_pc_fragments(&pc, root, base);
	if (!ret)
		ret = ovpop_pc_symbols(&pc, root);
	if (!ret)
		ret = ovpop_pc_dups(&pc);
	if (ret > 0)
		ret = 0;
	while (pc.npaths)
		kfree(pc.paths[--pc.npaths]);
	kfree(pc.paths);
	kfree(pc.e);
out_mem:
	kfree(mem);
	kfree(copy);
	return ret;
}
