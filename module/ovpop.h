/* SPDX-License-Identifier: GPL-2.0 */
/**
 * DOC: Overview
 *
 * ovpop - overlay-aware device population from the device tree.
 *
 * ovpop_populate() takes the same arguments as of_platform_populate(), so
 * board code converts with a one-line change. Unlike the kernel's own
 * populate, the subtree stays managed: overlays applied or removed later
 * that add, remove, enable or disable nodes inside it get their platform
 * and AMBA devices created and destroyed by the same rules, with the same
 * bus table and auxdata.
 */
#ifndef _OVPOP_H
#define _OVPOP_H

#include <linux/of_platform.h>

int ovpop_populate(struct device_node *root,
		   const struct of_device_id *matches,
		   const struct of_dev_auxdata *lookup,
		   struct device *parent);
void ovpop_depopulate(struct device_node *root);
int devm_ovpop_populate(struct device *dev);

#endif /* _OVPOP_H */
