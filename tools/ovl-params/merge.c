// SPDX-License-Identifier: GPL-2.0
/*
 * After the parameters: the fragments whose target is a node of the overlay
 * itself are merged into that node and hidden, as dtoverlay_merge_overlay()
 * does before it hands an overlay to the kernel (which could not resolve
 * such a target); then the __symbols__ entries go that the kernel would
 * refuse (not below a fragment's __overlay__ node) or, with an __exports__
 * node, that it does not name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "ovl-params.h"

#define OP_PATH_MAX	1024

/* the name of the @i-th subnode of the node at @path, in @buf, or 0 */
static int op_subnode_at(const struct op_blob *b, const char *path, int i, char *buf,
			 size_t n)
{
	int node = op_node(b, path), sub, k = 0;

	if (node < 0)
		return 0;
	fdt_for_each_subnode(sub, b->fdt, node) {
		if (k++ == i) {
			snprintf(buf, n, "%s", fdt_get_name(b->fdt, sub, NULL));
			return 1;
		}
	}
	return 0;
}

static void op_add_subnode(struct op_blob *b, const char *path, const char *name)
{
	int err;

	while ((err = fdt_add_subnode(b->fdt, op_node(b, path), name)) == -FDT_ERR_NOSPACE)
		op_grow(b);
	if (err < 0 && err != -FDT_ERR_EXISTS)
		op_fail(b, OP_REFUSED, "cannot add %s/%s: %s", path, name, fdt_strerror(err));
}

/*
 * The properties and subnodes of @src set in @dst (dtoverlay_merge_fragment()):
 * not "name", not the phandle of the top node, bootargs appended.
 */
static void op_merge_node(struct op_blob *b, const char *dst, const char *src, int depth)
{
	char sp[OP_PATH_MAX], dp[OP_PATH_MAX], sub[256], prop[256];
	const char *name, *val, *old;
	int i, len, oldlen;

	for (i = 0; (val = op_prop_at(b, src, i, &name, &len)); i++) {
		op_fmt(b, prop, sizeof(prop), "%s", name);
		if (!strcmp(prop, "name"))
			continue;
		if (!strcmp(prop, "phandle") || !strcmp(prop, "linux,phandle")) {
			/*
			 * The target keeps its own; a subnode's moves, where
			 * dtoverlay copies it and leaves two nodes with one
			 * phandle (which dtc and fdtoverlay reject)
			 */
			if (depth) {
				old = fdt_getprop(b->fdt, op_node(b, dst), prop, &oldlen);
				if (old && (oldlen != len || memcmp(old, val, len)))
					op_fail(b, OP_REFUSED, "cannot merge %s into %s: %s",
						src, dst, "both have a phandle");
				op_setprop(b, dst, prop, val, len);
				op_delprop(b, src, prop);
				i--;
			}
			continue;
		}
		op_put(b, dst, prop, val, len);
	}
	for (i = 0; op_subnode_at(b, src, i, sub, sizeof(sub)); i++) {
		op_fmt(b, sp, sizeof(sp), "%s/%s", src, sub);
		op_fmt(b, dp, sizeof(dp), "%s/%s", strcmp(dst, "/") ? dst : "", sub);
		op_add_subnode(b, dst, sub);
		op_merge_node(b, dp, sp, depth + 1);
	}
}

/* the path of the overlay node fragment @frag targets, in @buf, or 0 */
static int op_local_target(const struct op_blob *b, const char *frag, char *buf, size_t n)
{
	int node = op_node(b, frag), len, tn;
	const fdt32_t *ph;

	if (fdt_getprop(b->fdt, node, "target-path", NULL))
		return 0;
	ph = fdt_getprop(b->fdt, node, "target", &len);
	if (!ph || len != 4 || !fdt32_to_cpu(*ph) || fdt32_to_cpu(*ph) >= 0x80000000u)
		return 0;
	tn = op_node_by_phandle(b, fdt32_to_cpu(*ph));
	if (tn < 0)
		return 0;
	op_path(b, tn, buf, n);
	return 1;
}

/**
 * op_merge_local_fragments() - merges fragments that target the overlay's nodes
 * @b: the blob
 *
 * In node order, each fragment with an __overlay__ whose "target" is a node
 * of the overlay: its contents go into that node, with the __fixups__ and
 * __local_fixups__ of the moved properties (dtoverlay rebases only those of
 * the top node's; these are those of its children too), its symbols follow,
 * and it becomes __dormant__.
 */
void op_merge_local_fragments(struct op_blob *b)
{
	char frag[OP_PATH_MAX], ov[OP_PATH_MAX], target[OP_PATH_MAX], lf[2][OP_PATH_MAX];
	char name[256];
	int i;

	for (i = 0; op_subnode_at(b, "/", i, name, sizeof(name)); i++) {
		if (strncmp(name, "fragment@", 9) && strncmp(name, "fragment-", 9))
			continue;
		op_fmt(b, frag, sizeof(frag), "/%s", name);
		op_fmt(b, ov, sizeof(ov), "%s/__overlay__", frag);
		if (op_node(b, ov) < 0 || !op_local_target(b, frag, target, sizeof(target)))
			continue;
		if (!strncmp(target, frag, strlen(frag)) &&
		    (!target[strlen(frag)] || target[strlen(frag)] == '/'))
			op_fail(b, OP_REFUSED, "%s targets a node of its own", frag);
		op_merge_node(b, target, ov, 0);
		op_fmt(b, lf[0], sizeof(lf[0]), "/__local_fixups__%s", ov);
		op_fmt(b, lf[1], sizeof(lf[1]), "/__local_fixups__%s", target);
		if (op_node(b, lf[0]) >= 0) {
			op_make_path(b, lf[1]);
			op_merge_node(b, lf[1], lf[0], 1);
		}
		op_rebase(b, ov, target);
		op_rename(b, ov, "__dormant__");
	}
}

/* whether @path (a symbol's) is below a fragment's active __overlay__ */
static int op_in_fragment(const struct op_blob *b, const char *path)
{
	char ov[OP_PATH_MAX];
	const char *rest;

	if (path[0] != '/' || !path[1])
		return 0;
	rest = strchr(path + 1, '/');
	if (!rest || strncmp(rest, "/__overlay__", 12) || (rest[12] && rest[12] != '/'))
		return 0;
	op_fmt(b, ov, sizeof(ov), "%.*s", (int)(rest + 12 - path), path);
	return op_node(b, ov) >= 0;
}

/**
 * op_drop_stray_symbols() - removes the symbols the kernel would refuse
 * @b: the blob
 *
 * The kernel's overlay code (dup_and_fixup_symbol_prop()) refuses an
 * overlay with a symbol that is not below one of its fragments' __overlay__
 * nodes: a fragment's own label, a label in a hidden (__dormant__) one.
 * With an __exports__ node, as dtoverlay_filter_symbols(), only the labels
 * it names stay.
 */
void op_drop_stray_symbols(struct op_blob *b)
{
	int i, len, exports = op_node(b, "/__exports__");
	const char *name, *val;
	char prop[256];

	for (i = 0; (val = op_prop_at(b, "/__symbols__", i, &name, &len)); i++) {
		op_fmt(b, prop, sizeof(prop), "%s", name);
		if (len > 0 && !val[len - 1] && op_in_fragment(b, val) &&
		    (exports < 0 || fdt_getprop(b->fdt, exports, prop, NULL)))
			continue;
		op_delprop(b, "/__symbols__", prop);
		exports = op_node(b, "/__exports__");
		i--;
	}
}
