// SPDX-License-Identifier: GPL-2.0
/*
 * Reconfig notifications: devices for nodes that overlays (or any changeset)
 * add, remove, enable or disable inside a populated subtree.
 *
 * The kernel's own notifier (of_platform_notify, priority 0) gives every
 * such node a platform device: wrong for primecells, none for the children
 * of a new bus, one even for nodes without "compatible". This one runs
 * first (priority 1) and handles the nodes of ovpop's populations itself.
 * It sets OF_POPULATED on the nodes it creates devices for, so the core's
 * ADD skips them, and clears it when it destroys them, so the core's REMOVE
 * skips them too. For a node of a population that must get no device, it
 * stops the chain (NOTIFY_STOP), since the core would make one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/amba/bus.h>
#include <linux/device.h>
#include <linux/notifier.h>
#include <linux/of.h>
#include <linux/platform_device.h>

#include "internal.h"

static int ovpop_notify_add(struct device_node *np)
{
	int ret = ovpop_node_added(np);

	if (ret > 0)
		return NOTIFY_OK;	/* not for us */
	if (ret < 0) {
		/* the OF core fails the apply with it; the applier removes it */
		pr_err("%pOF: cannot create device: %d\n", np, ret);
		ovpop_stack_note_error(np, ret);
		return notifier_from_errno(ret);
	}
	/* No device by our rules: keep the core from making a wrong one */
	if (!of_node_check_flag(np, OF_POPULATED))
		return NOTIFY_STOP;
	return NOTIFY_OK;
}

/*
 * The core's REMOVE finds only platform devices: an AMBA device the kernel
 * created for a node of a population is taken away here: only an AMBA
 * device (ovpop_kernel_device() would find a platform device first).
 */
static void ovpop_remove_kernel_amba(struct device_node *np)
{
	struct device *dev;

	if (!IS_ENABLED(CONFIG_ARM_AMBA) ||
	    !of_node_check_flag(np, OF_POPULATED) || !ovpop_in_population(np))
		return;
	dev = bus_find_device_by_of_node(&amba_bustype, np);
	if (!dev)
		return;
	ovpop_device_destroy(dev, NULL);	/* the registration's reference */
	put_device(dev);			/* the lookup's */
}

static int ovpop_notify_remove(struct device_node *np)
{
	ovpop_kernel_device_forget(np);
	if (ovpop_remove_node(np))
		return NOTIFY_OK;
	/* Not ours: first take away ours below it, then a kernel AMBA device */
	ovpop_remove_below(np);
	ovpop_remove_kernel_amba(np);
	return NOTIFY_OK;
}

/*
 * Only the additions and removals are counted (and timed: stats.c): for
 * the property notifications, three in four of an overlay's, reading the
 * clock would cost more than handling them.
 */
static int ovpop_reconfig_notify(struct notifier_block *nb,
				 unsigned long action, void *arg)
{
	struct of_reconfig_data *rd = arg;
	enum ovpop_stat stat;
	int ret;
	u64 t0;

	/* every notification is one changeset entry (node or property) */
	ovpop_stack_note(rd->dn);
	if (action == OF_RECONFIG_ATTACH_NODE)
		ovpop_stack_note_attached(rd->dn);
	if (action == OF_RECONFIG_DETACH_NODE)
		ovpop_kernel_device_forget(NULL);
	ovpop_release_note(action, rd->dn);
	switch (of_reconfig_get_state_change(action, rd)) {
	case OF_RECONFIG_CHANGE_ADD:
		t0 = ovpop_time_start();
		ovpop_stack_note_added(rd->dn);
		ret = ovpop_notify_add(rd->dn);
		stat = OVPOP_STAT_ADD;
		break;
	case OF_RECONFIG_CHANGE_REMOVE:
		t0 = ovpop_time_start();
		ret = ovpop_notify_remove(rd->dn);
		stat = OVPOP_STAT_REMOVE;
		break;
	default:
		return NOTIFY_OK;
	}
	ovpop_time_end(stat, t0);
	/* the lowest priority notifier will not see it: settle a removal here */
	if (ret & NOTIFY_STOP_MASK)
		ovpop_release_settle();
	return ret;
}

static struct notifier_block ovpop_reconfig_nb = {
	.notifier_call = ovpop_reconfig_notify,
	.priority = 1,	/* before the core's of_platform_notify */
};

/*
 * A device deleted by other code (a bus driver's of_platform_depopulate()):
 * if it is ovpop's, ovpop lets it go (ovpop_device_gone()). Its driver is
 * unbound by then, and its last reference is not put yet.
 */
static int ovpop_bus_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	if (action == BUS_NOTIFY_REMOVED_DEVICE)
		ovpop_device_gone(data);
	return NOTIFY_DONE;
}

static struct notifier_block ovpop_platform_nb = {
	.notifier_call = ovpop_bus_notify,
};

static struct notifier_block ovpop_amba_nb = {
	.notifier_call = ovpop_bus_notify,
};

int ovpop_notify_init(void)
{
	int ret;

	ret = bus_register_notifier(&platform_bus_type, &ovpop_platform_nb);
	if (ret)
		return ret;
	if (IS_ENABLED(CONFIG_ARM_AMBA)) {
		ret = bus_register_notifier(&amba_bustype, &ovpop_amba_nb);
		if (ret)
			goto err_platform;
	}
	ret = of_reconfig_notifier_register(&ovpop_reconfig_nb);
	if (ret)
		goto err_amba;
	return 0;

err_amba:
	if (IS_ENABLED(CONFIG_ARM_AMBA))
		bus_unregister_notifier(&amba_bustype, &ovpop_amba_nb);
err_platform:
	bus_unregister_notifier(&platform_bus_type, &ovpop_platform_nb);
	return ret;
}

void ovpop_notify_exit(void)
{
	of_reconfig_notifier_unregister(&ovpop_reconfig_nb);
	ovpop_kernel_device_forget(NULL);
	if (IS_ENABLED(CONFIG_ARM_AMBA))
		bus_unregister_notifier(&amba_bustype, &ovpop_amba_nb);
	bus_unregister_notifier(&platform_bus_type, &ovpop_platform_nb);
}
