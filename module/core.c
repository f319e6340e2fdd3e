// SPDX-License-Identifier: GPL-2.0
/*
 * The populate core: which devices exist for a populated subtree, creating
 * them by the rules of of_platform_populate(), and taking them away.
 *
 * Every device ovpop creates has a record (struct ovpop_node) in a table
 * keyed by its node, so the device of a node is found without walking a bus,
 * and records form a tree that follows the device tree, so a subtree is torn
 * down children first without walking the device tree (whose nodes may
 * already be detached when an overlay is removed).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/amba/bus.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/of_platform.h>
#include <linux/slab.h>

#include "ovpop.h"
#include "internal.h"

/* The default bus table of of_platform_populate() */
static const struct of_device_id ovpop_default_bus_match[] = {
	{ .compatible = "simple-bus", },
	{ .compatible = "simple-mfd", },
	{ .compatible = "isa", },
	{ .compatible = "arm,amba-bus", },
	{} /* Empty terminated list */
};

/* Nodes that never get a device, as in the kernel's of_skipped_node_table */
static const struct of_device_id ovpop_skipped_nodes[] = {
	{ .compatible = "operating-points-v2", },
	{} /* Empty terminated list */
};

/* What it protects and its lock order: see internal.h */
DEFINE_MUTEX(ovpop_lock);
/* Protected by ovpop_lock */
static LIST_HEAD(ovpop_pops);
static DEFINE_HASHTABLE(ovpop_table, 12);
static unsigned int ovpop_ndevices;	/* records in ovpop_table */

static struct kmem_cache *ovpop_node_cache;

static struct ovpop_node *ovpop_lookup(const struct device_node *np)
{
	struct ovpop_node *rec;

	lockdep_assert_held(&ovpop_lock);
	hash_for_each_possible(ovpop_table, rec, hash, (unsigned long)np)
		if (rec->dev->of_node == np)
			return rec;
	return NULL;
}

static struct ovpop_pop *ovpop_pop_by_root(const struct device_node *np)
{
	struct ovpop_pop *pop;

	lockdep_assert_held(&ovpop_lock);
	list_for_each_entry(pop, &ovpop_pops, list)
		if (pop->root == np)
			return pop;
	return NULL;
}

static struct ovpop_pop *ovpop_rec_pop(struct ovpop_node *rec)
{
	lockdep_assert_held(&ovpop_lock);
	while (rec->parent)
		rec = rec->parent;
	return container_of(rec, struct ovpop_pop, top);
}

static void ovpop_pop_release(struct kref *kref)
{
	struct ovpop_pop *pop = container_of(kref, struct ovpop_pop, kref);

	put_device(pop->top.dev);
	of_node_put(pop->root);
	kfree(pop);
}

static void ovpop_pop_put(struct ovpop_pop *pop)
{
	kref_put(&pop->kref, ovpop_pop_release);
}

/*
 * Where a new child of @parent goes: its population, the device it goes
 * under (with a reference; NULL for the platform bus) and whether that is a
 * device of ours (the record to link under) or the population's top.
 */
struct ovpop_place {
	struct ovpop_pop *pop;
	struct device *dev;
	bool parent_ours;
};

/*
 * A child belongs to a population when its parent is the population's root,
 * a bus ovpop populated, or a bus the kernel populated whose ancestors up to
 * one of those are populated buses too. The innermost population wins.
 * Returns false when the child is not for ovpop.
 */
static bool ovpop_place_get(struct device_node *parent, struct ovpop_place *pl)
{
	struct ovpop_node *rec;
	struct device_node *np;

	*pl = (struct ovpop_place){ };
	mutex_lock(&ovpop_lock);
	for (np = parent; np; np = np->parent) {
		pl->pop = ovpop_pop_by_root(np);
		if (pl->pop) {
			if (np == parent)
				pl->dev = get_device(pl->pop->top.dev);
			break;
		}
		if (!of_node_check_flag(np, OF_POPULATED_BUS))
			break;
		rec = ovpop_lookup(np);
		if (rec) {
			pl->pop = ovpop_rec_pop(rec);
			if (np == parent) {
				pl->dev = get_device(rec->dev);
				pl->parent_ours = true;
			}
			break;
		}
	}
	if (pl->pop)
		kref_get(&pl->pop->kref);
	mutex_unlock(&ovpop_lock);
	if (!pl->pop)
		return false;

	/* Under a bus the kernel populated: its device is not in our table */
	if (np != parent) {
		pl->dev = ovpop_find_kernel_device(parent);
		if (!pl->dev) {
			ovpop_pop_put(pl->pop);
			return false;
		}
	}
	return true;
}

static void ovpop_place_put(struct ovpop_place *pl)
{
	put_device(pl->dev);
	ovpop_pop_put(pl->pop);
}

/**
 * ovpop_in_population() - is a node's parent managed by a population
 * @np: the node
 *
 * Return: true when a new child of @np's parent would be created by ovpop.
 */
bool ovpop_in_population(struct device_node *np)
{
	struct ovpop_place pl;

	if (!np->parent || !ovpop_place_get(np->parent, &pl))
		return false;
	ovpop_place_put(&pl);
	return true;
}

/**
 * ovpop_core_devices() - how many devices ovpop has created and not destroyed
 * @bytes: set to the memory their records take
 *
 * Return: the number of records in the node table.
 */
unsigned int ovpop_core_devices(size_t *bytes)
{
	unsigned int n;

	mutex_lock(&ovpop_lock);
	n = ovpop_ndevices;
	mutex_unlock(&ovpop_lock);
	*bytes = (size_t)n * kmem_cache_size(ovpop_node_cache);
	return n;
}

/**
 * ovpop_node_device() - the device ovpop created for a node
 * @np: the node
 *
 * Return: the device with a reference the caller drops with put_device(),
 * or NULL if ovpop has none for @np.
 */
struct device *ovpop_node_device(const struct device_node *np)
{
	struct ovpop_node *rec;
	struct device *dev;

	mutex_lock(&ovpop_lock);
	rec = ovpop_lookup(np);
	dev = rec ? get_device(rec->dev) : NULL;
	mutex_unlock(&ovpop_lock);
	return dev;
}

/*
 * Link a record for a device just created into the tree, under the record of
 * its parent node (@parent_ours) or under the population's top. Fails when
 * that parent was taken away meanwhile, so no record hangs under a dead one;
 * returns 1 when the device is being unregistered already (the parent's
 * driver depopulated its node while the device was added: OF_POPULATED is
 * clear), so no record stays for a freed device.
 */
static int ovpop_link(struct ovpop_pop *pop, struct ovpop_node *rec,
		      bool parent_ours)
{
	struct device_node *np = rec->dev->of_node;
	struct ovpop_node *prec;
	int ret = 0;

	mutex_lock(&ovpop_lock);
	if (!of_node_check_flag(np, OF_POPULATED)) {
		/* a bus driver's depopulate took it while it probed */
		mutex_unlock(&ovpop_lock);
		return 1;
	}
	if (parent_ours)
		prec = ovpop_lookup(np->parent);
	else
		prec = list_empty(&pop->list) ? NULL : &pop->top;
	if (prec) {
		rec->parent = prec;
		list_add_tail(&rec->sibling, &prec->children);
		hash_add(ovpop_table, &rec->hash, (unsigned long)np);
		ovpop_ndevices++;
	} else {
		ret = -ENODEV;
	}
	mutex_unlock(&ovpop_lock);
	return ret;
}

/* Under ovpop_lock: make a subtree of records unreachable to others */
static void ovpop_unhash(struct ovpop_node *rec)
{
	struct ovpop_node *child;

	hash_del(&rec->hash);
	ovpop_ndevices--;
	list_for_each_entry(child, &rec->children, sibling)
		ovpop_unhash(child);
}

static void ovpop_teardown(struct ovpop_node *rec);

/* Without the lock, on unreachable records linked by @sibling: newest first */
static void ovpop_teardown_list(struct list_head *list)
{
	struct ovpop_node *rec, *tmp;

	list_for_each_entry_safe_reverse(rec, tmp, list, sibling) {
		list_del(&rec->sibling);
		ovpop_teardown(rec);
	}
}

/* Without the lock, on an unreachable subtree: newest children first */
static void ovpop_teardown(struct ovpop_node *rec)
{
	ovpop_teardown_list(&rec->children);
	ovpop_device_destroy(rec->dev, rec->pdata);
	kmem_cache_free(ovpop_node_cache, rec);
}

static int ovpop_create_node(struct ovpop_pop *pop, struct device_node *np,
			     struct device *parent_dev, bool parent_ours);

static int ovpop_create_children(struct ovpop_pop *pop, struct device_node *bus,
				 struct device *dev)
{
	struct device_node *child;
	int ret = 0;

	/* Keep the bus device while its children are added under it */
	get_device(dev);
	for_each_child_of_node(bus, child) {
		ret = ovpop_create_node(pop, child, dev, true);
		if (ret) {
			of_node_put(child);
			break;
		}
	}
	put_device(dev);
	if (!ret)
		of_node_set_flag(bus, OF_POPULATED_BUS);
	return ret;
}

/*
 * As the kernel's of_platform_bus_create() in strict mode: a node needs
 * "compatible" and status okay; primecells become AMBA devices (none on a
 * kernel without CONFIG_ARM_AMBA, as its of_amba_device_create() stub) and
 * are not descended into; nodes matching the bus table have their children
 * created.
 * Errors other than "no device for this node" are returned; the caller
 * tears down what was created.
 */
static int ovpop_create_node(struct ovpop_pop *pop, struct device_node *np,
			     struct device *parent_dev, bool parent_ours)
{
	const struct of_dev_auxdata *aux;
	struct ovpop_node *rec;
	struct device *dev;
	int ret;

	if (!of_property_present(np, "compatible") ||
	    of_match_node(ovpop_skipped_nodes, np) ||
	    (!IS_ENABLED(CONFIG_ARM_AMBA) &&
	     of_device_is_compatible(np, "arm,primecell")) ||
	    !of_device_is_available(np) ||
	    of_node_check_flag(np, OF_POPULATED_BUS) ||
	    of_node_test_and_set_flag(np, OF_POPULATED))
		return 0;

	rec = kmem_cache_zalloc(ovpop_node_cache, GFP_KERNEL);
	if (!rec) {
		ret = -ENOMEM;
		goto err_clear;
	}
	INIT_LIST_HEAD(&rec->children);
	aux = ovpop_auxdata(pop->lookup, np);
	dev = ovpop_device_create(np, aux, parent_dev);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto err_free;
	}
	rec->dev = dev;
	rec->pdata = aux ? aux->platform_data : NULL;

	ret = ovpop_link(pop, rec, parent_ours);
	if (ret) {
		ovpop_device_destroy(dev, rec->pdata);
		kmem_cache_free(ovpop_node_cache, rec);
		return ret > 0 ? 0 : ret;
	}

	/* primecells are AMBA devices, and no buses */
	if ((IS_ENABLED(CONFIG_ARM_AMBA) && dev->bus == &amba_bustype) ||
	    !of_match_node(pop->matches, np))
		return 0;
	return ovpop_create_children(pop, np, dev);

err_free:
	kmem_cache_free(ovpop_node_cache, rec);
err_clear:
	of_node_clear_flag(np, OF_POPULATED);
	return ret;
}

/**
 * ovpop_node_added() - create the devices for a node that became available
 * @np: a node attached or enabled by an overlay or a changeset
 *
 * Return: 1 when @np is not in a population, 0 when it got its devices or
 * needs none (then OF_POPULATED tells which), or a negative errno after
 * destroying whatever was created for it.
 */
int ovpop_node_added(struct device_node *np)
{
	struct ovpop_place pl;
	int ret;

	if (!np->parent || !ovpop_place_get(np->parent, &pl))
		return 1;
	ret = ovpop_create_node(pl.pop, np, pl.dev, pl.parent_ours);
	ovpop_place_put(&pl);
	if (ret)
		ovpop_remove_node(np);
	return ret;
}

/**
 * ovpop_remove_node() - destroy the devices ovpop created for a node
 * @np: the node
 *
 * Destroys the node's device and every device ovpop created below it,
 * children first, and clears their OF_POPULATED flags.
 *
 * Return: true when @np had a device created by ovpop.
 */
bool ovpop_remove_node(struct device_node *np)
{
	struct ovpop_node *rec;

	mutex_lock(&ovpop_lock);
	rec = ovpop_lookup(np);
	if (rec) {
		list_del(&rec->sibling);
		ovpop_unhash(rec);
	}
	mutex_unlock(&ovpop_lock);

	if (!rec)
		return false;
	ovpop_teardown(rec);
	return true;
}

/**
 * ovpop_device_gone() - lets go of a device of ovpop's that other code
 *			 unregistered
 * @dev: a platform or AMBA device, deleted but not yet released
 *
 * A bus driver that populated its node with devm_of_platform_populate()
 * depopulates it when unbound: of_platform_depopulate() unregisters every
 * child marked OF_POPULATED, those ovpop created too, children first. The
 * bus notifier calls this once such a device is deleted, while the code
 * that unregisters it still holds it: its record goes (so ovpop never
 * touches the device again) and the auxdata platform_data, which is not
 * the device's to free, is taken from it. Children still recorded below
 * it are destroyed first. ovpop's own deletions find no record: it takes
 * them out of the table before it deletes their devices.
 */
void ovpop_device_gone(struct device *dev)
{
	struct ovpop_node *rec;

	if (!dev->of_node)
		return;
	mutex_lock(&ovpop_lock);
	rec = ovpop_lookup(dev->of_node);
	if (rec && rec->dev == dev) {
		list_del(&rec->sibling);
		ovpop_unhash(rec);
	} else {
		rec = NULL;
	}
	mutex_unlock(&ovpop_lock);
	if (!rec)
		return;

	ovpop_teardown_list(&rec->children);
	if (rec->pdata && dev->platform_data == rec->pdata)
		dev->platform_data = NULL;
	kmem_cache_free(ovpop_node_cache, rec);
}

/**
 * ovpop_remove_below() - destroy ovpop's devices below a node it did not make
 * @np: a node whose device, if any, the kernel created
 *
 * Walks the part of @np's subtree that is not ovpop's, destroying every
 * device ovpop created under it, so that none is left under a parent device
 * that is going away.
 */
void ovpop_remove_below(struct device_node *np)
{
	struct device_node *child;

	for_each_child_of_node(np, child)
		if (!ovpop_remove_node(child))
			ovpop_remove_below(child);
}

/*
 * Tear down a population that its caller took off the list under
 * ovpop_lock (so no one else can find it), and drop the list's reference.
 */
static void ovpop_pop_teardown(struct ovpop_pop *pop)
{
	struct ovpop_node *rec;
	LIST_HEAD(dead);

	mutex_lock(&ovpop_lock);
	list_splice_init(&pop->top.children, &dead);
	list_for_each_entry(rec, &dead, sibling)
		ovpop_unhash(rec);
	mutex_unlock(&ovpop_lock);

	ovpop_teardown_list(&dead);
	if (!pop->root_was_bus)
		of_node_clear_flag(pop->root, OF_POPULATED_BUS);
	ovpop_pop_put(pop);
}

/* Take a population off the list: NULL when there is none for @root */
static struct ovpop_pop *ovpop_pop_claim(struct device_node *root)
{
	struct ovpop_pop *pop;

	mutex_lock(&ovpop_lock);
	pop = root ? ovpop_pop_by_root(root) :
		     list_first_entry_or_null(&ovpop_pops, struct ovpop_pop,
					      list);
	if (pop)
		list_del_init(&pop->list);
	mutex_unlock(&ovpop_lock);
	return pop;
}

/**
 * ovpop_populate() - populate a subtree and keep it populated across overlays
 * @root: root of the subtree, or NULL for the root of the device tree
 * @matches: bus table; NULL for the kernel's default (simple-bus, simple-mfd,
 *	isa, arm,amba-bus)
 * @lookup: auxdata table (name and platform_data by compatible and address),
 *	or NULL
 * @parent: parent device for the devices of @root's children, or NULL for
 *	the platform bus
 *
 * Creates devices for the children of @root as of_platform_populate() does:
 * a node needs "compatible" and status okay, "arm,primecell" nodes become
 * AMBA devices, other nodes platform devices, and the children of nodes
 * matching @matches are created too. Until ovpop_depopulate(), overlays that
 * add, remove, enable or disable nodes in the subtree get their devices
 * created and destroyed by the same rules, with the same @matches and
 * @lookup, so both must stay valid until then. Nodes that already have a
 * device are left alone (OF_POPULATED), so populating twice is harmless.
 *
 * References: holds @root and @parent until ovpop_depopulate(). Each device
 * holds its node; ovpop holds the devices' registrations.
 *
 * Return: 0 on success. On failure nothing is left created and a negative
 * errno is returned: -EEXIST if @root is already populated by ovpop,
 * -EINVAL without a device tree, -ENOMEM, or the first device creation
 * error (e.g. -EBUSY when an AMBA device's range is taken).
 */
int ovpop_populate(struct device_node *root,
		   const struct of_device_id *matches,
		   const struct of_dev_auxdata *lookup,
		   struct device *parent)
{
	struct device_node *child;
	struct ovpop_pop *pop;
	int ret = 0;

	root = root ? of_node_get(root) : of_find_node_by_path("/");
	if (!root)
		return -EINVAL;

	pop = kzalloc(sizeof(*pop), GFP_KERNEL);
	if (!pop) {
		of_node_put(root);
		return -ENOMEM;
	}
	pop->root = root;
	pop->matches = matches ?: ovpop_default_bus_match;
	pop->lookup = lookup;
	pop->top.dev = get_device(parent);
	INIT_LIST_HEAD(&pop->top.children);
	kref_init(&pop->kref);

	mutex_lock(&ovpop_lock);
	if (ovpop_pop_by_root(root)) {
		mutex_unlock(&ovpop_lock);
		pr_err("%pOF: already populated\n", root);
		ovpop_pop_put(pop);
		return -EEXIST;
	}
	pop->root_was_bus = of_node_check_flag(root, OF_POPULATED_BUS);
	list_add_tail(&pop->list, &ovpop_pops);
	mutex_unlock(&ovpop_lock);

	for_each_child_of_node(root, child) {
		ret = ovpop_create_node(pop, child, parent, false);
		if (ret) {
			of_node_put(child);
			break;
		}
	}
	if (ret) {
		pr_err("%pOF: populate failed: %d\n", root, ret);
		if (ovpop_pop_claim(root) == pop)
			ovpop_pop_teardown(pop);
		return ret;
	}
	of_node_set_flag(root, OF_POPULATED_BUS);
	return 0;
}
EXPORT_SYMBOL_GPL(ovpop_populate);

/**
 * ovpop_depopulate() - destroy a populated subtree's devices and stop
 *	managing it
 * @root: the root given to ovpop_populate(), or NULL for the root of the
 *	device tree
 *
 * Destroys every device ovpop created for the subtree, including those that
 * overlays added since, children before parents, and drops the references
 * ovpop_populate() took. Devices the kernel created are left alone.
 */
void ovpop_depopulate(struct device_node *root)
{
	struct device_node *np;
	struct ovpop_pop *pop;

	np = root ? of_node_get(root) : of_find_node_by_path("/");
	pop = np ? ovpop_pop_claim(np) : NULL;
	if (pop)
		ovpop_pop_teardown(pop);
	else
		pr_warn("%pOF: not populated by ovpop\n", np);
	of_node_put(np);
}
EXPORT_SYMBOL_GPL(ovpop_depopulate);

/*
 * A node of the base tree (unflattened at boot, never detached): not
 * OF_DYNAMIC, which overlay nodes and nodes made by changesets are.
 */
static bool ovpop_base_node(const struct device_node *np)
{
	return !of_node_check_flag(np, OF_DYNAMIC);
}

/*
 * Gives the kernel the device of a node of the base tree, and those below
 * it: the kernel makes one for an available base-tree node below a
 * populated bus (at boot, or from its reconfig notifier when an overlay
 * enables it), so the system keeps it without ovpop. ovpop made this one
 * after an overlay disabled the node and another enabled it again, or at
 * insmod for a node the kernel had left without a device. The device stays
 * registered and marked OF_POPULATED, as the kernel's are; its records go.
 * Devices of other nodes below it are destroyed.
 */
static void ovpop_hand_over(struct ovpop_node *rec)
{
	struct ovpop_node *child, *tmp;

	list_for_each_entry_safe_reverse(child, tmp, &rec->children, sibling) {
		list_del(&child->sibling);
		if (!ovpop_base_node(child->dev->of_node))
			ovpop_teardown(child);
		else
			ovpop_hand_over(child);
	}
	kmem_cache_free(ovpop_node_cache, rec);
}

/**
 * ovpop_depopulate_exit() - stops managing a subtree when ovpop is unloaded
 * @root: the root given to ovpop_populate()
 *
 * As ovpop_depopulate(), but leaves the system as the kernel alone would
 * have it: the devices of base-tree nodes stay (ovpop_hand_over()); those
 * of overlay and other dynamic nodes are destroyed (the kernel's reconfig
 * notifier would not find an AMBA device of a node that goes later). Only
 * for a population without auxdata.
 */
void ovpop_depopulate_exit(struct device_node *root)
{
	struct ovpop_node *rec, *tmp;
	struct ovpop_pop *pop;
	LIST_HEAD(kept);

	pop = ovpop_pop_claim(root);
	if (!pop)
		return;
	mutex_lock(&ovpop_lock);
	list_for_each_entry_safe(rec, tmp, &pop->top.children, sibling) {
		if (!ovpop_base_node(rec->dev->of_node))
			continue;
		list_del(&rec->sibling);
		ovpop_unhash(rec);
		list_add_tail(&rec->sibling, &kept);
	}
	mutex_unlock(&ovpop_lock);
	list_for_each_entry_safe_reverse(rec, tmp, &kept, sibling) {
		list_del(&rec->sibling);
		ovpop_hand_over(rec);
	}
	ovpop_pop_teardown(pop);
}

static void devm_ovpop_depopulate(void *root)
{
	ovpop_depopulate(root);
}

/**
 * devm_ovpop_populate() - ovpop_populate() the children of a device's node,
 *	depopulated when the device is unbound
 * @dev: device whose of_node is the root; it becomes the parent device
 *
 * As devm_of_platform_populate(): the default bus table, no auxdata.
 *
 * Return: 0 on success, -EINVAL if @dev has no node, or as ovpop_populate().
 */
int devm_ovpop_populate(struct device *dev)
{
	int ret;

	if (!dev || !dev->of_node)
		return -EINVAL;
	ret = ovpop_populate(dev->of_node, NULL, NULL, dev);
	if (ret)
		return ret;
	return devm_add_action_or_reset(dev, devm_ovpop_depopulate,
					dev->of_node);
}
EXPORT_SYMBOL_GPL(devm_ovpop_populate);

int ovpop_core_init(void)
{
	ovpop_node_cache = KMEM_CACHE(ovpop_node, 0);
	return ovpop_node_cache ? 0 : -ENOMEM;
}

void ovpop_core_exit(void)
{
	struct ovpop_pop *pop;

	/* Populations left by users that never depopulated */
	while ((pop = ovpop_pop_claim(NULL))) {
		pr_warn("%pOF: still populated at exit, depopulating\n",
			pop->root);
		ovpop_pop_teardown(pop);
	}
	kmem_cache_destroy(ovpop_node_cache);
}
