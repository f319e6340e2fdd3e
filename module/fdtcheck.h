/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the checks of an overlay blob share: blob.c checks the structure
 * and hands what fixups.c needs to check /__local_fixups__ against it.
 */
#ifndef _OVPOP_FDTCHECK_H
#define _OVPOP_FDTCHECK_H

#include <linux/string.h>
#include <linux/types.h>

/*
 * Nodes per path, the root included: unflatten_dt_nodes() (drivers/of/fdt.c)
 * skips a node at depth FDT_MAX_DEPTH - 1 = 63 or deeper with WARN_ON_ONCE()
 */
#define OVPOP_FDT_MAX_DEPTH	63

/* A node whose name differs only in case from an earlier sibling's */
struct ovpop_fdt_shadow {
	u32 node;		/* offsets of their FDT_BEGIN_NODE tokens */
	u32 first;		/* the first such sibling */
};

/* A blob whose structure blob.c checked */
struct ovpop_fdt_checked {
	const char *blob;
	const char *strings;	/* its strings block */
	u32 root;		/* offsets of nodes in the blob */
	u32 local_fixups;	/* the first root child of_node_name_eq() */
	struct ovpop_fdt_shadow *shadow; /* every such node; sorted here */
	unsigned int nshadow;
	char *msg;		/* for what is wrong */
	size_t msg_len;
};

/* As of_node_cmp() on kbasename()s: the same node name to the OF core */
static inline bool ovpop_fdt_same_node(const char *x, const char *y)
{
	return !strcasecmp(kbasename(x), kbasename(y));
}

int ovpop_fixups_check(struct ovpop_fdt_checked *c);

#endif /* _OVPOP_FDTCHECK_H */
