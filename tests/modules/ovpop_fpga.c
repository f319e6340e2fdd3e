// SPDX-License-Identifier: GPL-2.0
/*
 * A test FPGA manager and bridge for ovpop's FPGA tests.
 *
 * A platform driver for "ovpop,test-fpga-mgr" nodes registers an FPGA
 * manager that takes any image: write_init() starts a CRC-32 (the zlib one)
 * and a byte count, write() adds to them, write_complete() records the
 * image. One for "ovpop,test-fpga-bridge" nodes registers an FPGA bridge
 * that records each enable and disable. The module parameter fail_at makes
 * one step fail with -fail_errno (1 write_init, 2 write, 3 write_complete,
 * 4 a bridge's enable; 0 none).
 *
 * A third, for "ovpop,test-pl-gpio" nodes, registers a GPIO controller of
 * the programmable logic: eight output lines whose levels it keeps in
 * memory and records in the event list, for the gpio-leds and
 * regulator-fixed consumers of FPGA overlays.
 *
 * A notifier on the platform and AMBA buses records every device added or
 * deleted whose node lies below an "fpga-region" node. Both records go to
 * one event list, in the order they happened, each line
 *
 *   <seq> <ns> program size=<n> crc=<8 hex> flags=<hex>
 *   <seq> <ns> bridge <node name> enable|disable
 *   <seq> <ns> fail step=<n> errno=<n>
 *   <seq> <ns> gpio <dev_name> <line> <level>
 *   <seq> <ns> add|del <bus> <dev_name> <%pOF>
 *
 * read from debugfs ovpop_fpga/events (root only); a write there empties
 * it. The tests compare the order of the image's write with the PL
 * devices' creation and removal, and the image with the firmware file.
 */

#include <linux/amba/bus.h>
#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fpga/fpga-bridge.h>
#include <linux/fpga/fpga-mgr.h>
#include <linux/gpio/driver.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "ovpop_test_compat.h"

static int fail_at;
module_param(fail_at, int, 0644);
MODULE_PARM_DESC(fail_at,
		 "fail write_init (1), write (2), write_complete (3) or a bridge's enable (4)");

static int fail_errno = EIO;
module_param(fail_errno, int, 0644);
MODULE_PARM_DESC(fail_errno, "the errno of the failing step (positive)");

#define OVPOP_FPGA_EVENTS	256

struct ovpop_fpga_event {
	struct list_head node;
	u64 seq;
	u64 ns;
	char text[96];
};

/* the event list and its count and sequence; taken alone, never with of_mutex */
static DEFINE_MUTEX(ovpop_fpga_lock);
static LIST_HEAD(ovpop_fpga_events);
static unsigned int ovpop_fpga_nevents;
static u64 ovpop_fpga_seq;

static __printf(1, 2) void ovpop_fpga_event(const char *fmt, ...)
{
	struct ovpop_fpga_event *e;
	va_list ap;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	e->ns = ktime_get_ns();

	mutex_lock(&ovpop_fpga_lock);
	e->seq = ++ovpop_fpga_seq;
	if (ovpop_fpga_nevents == OVPOP_FPGA_EVENTS) {
		struct ovpop_fpga_event *old;

		old = list_first_entry(&ovpop_fpga_events, typeof(*old), node);
		list_del(&old->node);
		kfree(old);
		ovpop_fpga_nevents--;
	}
	list_add_tail(&e->node, &ovpop_fpga_events);
	ovpop_fpga_nevents++;
	mutex_unlock(&ovpop_fpga_lock);
}

static void ovpop_fpga_clear(void)
{
	struct ovpop_fpga_event *e, *tmp;

	mutex_lock(&ovpop_fpga_lock);
	list_for_each_entry_safe(e, tmp, &ovpop_fpga_events, node) {
		list_del(&e->node);
		kfree(e);
	}
	ovpop_fpga_nevents = 0;
	mutex_unlock(&ovpop_fpga_lock);
}

struct ovpop_fpga {
	enum fpga_mgr_states state;
	u32 crc;
	size_t size;
};

static int ovpop_fpga_fail(int step)
{
	int err = READ_ONCE(fail_errno);

	if (READ_ONCE(fail_at) != step)
		return 0;
	if (err <= 0 || err >= MAX_ERRNO)
		err = EIO;
	ovpop_fpga_event("fail step=%d errno=%d", step, err);
	return -err;
}

static enum fpga_mgr_states ovpop_fpga_state(struct fpga_manager *mgr)
{
	struct ovpop_fpga *priv = mgr->priv;

	return priv->state;
}

static int ovpop_fpga_write_init(struct fpga_manager *mgr,
				 struct fpga_image_info *info,
				 const char *buf, size_t count)
{
	struct ovpop_fpga *priv = mgr->priv;

	priv->crc = ~0U;
	priv->size = 0;
	priv->state = FPGA_MGR_STATE_UNKNOWN;
	return ovpop_fpga_fail(1);
}

static int ovpop_fpga_write(struct fpga_manager *mgr, const char *buf,
			    size_t count)
{
	struct ovpop_fpga *priv = mgr->priv;

	priv->crc = crc32_le(priv->crc, buf, count);
	priv->size += count;
	return ovpop_fpga_fail(2);
}

static int ovpop_fpga_write_complete(struct fpga_manager *mgr,
				     struct fpga_image_info *info)
{
	struct ovpop_fpga *priv = mgr->priv;
	int ret;

	ret = ovpop_fpga_fail(3);
	if (ret)
		return ret;
	priv->state = FPGA_MGR_STATE_OPERATING;
	ovpop_fpga_event("program size=%zu crc=%08x flags=%#x", priv->size,
			 ~priv->crc, info->flags);
	return 0;
}

static const struct fpga_manager_ops ovpop_fpga_ops = {
	.state = ovpop_fpga_state,
	.write_init = ovpop_fpga_write_init,
	.write = ovpop_fpga_write,
	.write_complete = ovpop_fpga_write_complete,
};

static int ovpop_fpga_probe(struct platform_device *pdev)
{
	struct fpga_manager *mgr;
	struct ovpop_fpga *priv;

	priv = devm_kzalloc(&pdev->dev, sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->state = FPGA_MGR_STATE_UNKNOWN;

	mgr = devm_fpga_mgr_register(&pdev->dev, "ovpop test FPGA manager",
				     &ovpop_fpga_ops, priv);
	return PTR_ERR_OR_ZERO(mgr);
}

static const struct of_device_id ovpop_fpga_of_match[] = {
	{ .compatible = "ovpop,test-fpga-mgr" },
	{ }
};
MODULE_DEVICE_TABLE(of, ovpop_fpga_of_match);

static struct platform_driver ovpop_fpga_driver = {
	.probe = ovpop_fpga_probe,
	.driver = {
		.name = "ovpop-test-fpga-mgr",
		.of_match_table = ovpop_fpga_of_match,
		/* a region holds the manager, not its devm-allocated state */
		.suppress_bind_attrs = true,
	},
};

static int ovpop_fpga_bridge_show(struct fpga_bridge *bridge)
{
	bool *enabled = bridge->priv;

	return *enabled;
}

static int ovpop_fpga_bridge_set(struct fpga_bridge *bridge, bool enable)
{
	bool *enabled = bridge->priv;
	int ret;

	ret = enable ? ovpop_fpga_fail(4) : 0;
	if (ret)
		return ret;
	*enabled = enable;
	ovpop_fpga_event("bridge %pOFP %s", bridge->dev.of_node,
			 enable ? "enable" : "disable");
	return 0;
}

static const struct fpga_bridge_ops ovpop_fpga_bridge_ops = {
	.enable_show = ovpop_fpga_bridge_show,
	.enable_set = ovpop_fpga_bridge_set,
};

static void ovpop_fpga_bridge_unregister(void *bridge)
{
	fpga_bridge_unregister(bridge);
}

static int ovpop_fpga_bridge_probe(struct platform_device *pdev)
{
	struct fpga_bridge *bridge;
	bool *enabled;

	enabled = devm_kzalloc(&pdev->dev, sizeof(*enabled), GFP_KERNEL);
	if (!enabled)
		return -ENOMEM;
	*enabled = true;

	bridge = fpga_bridge_register(&pdev->dev, "ovpop test FPGA bridge",
				      &ovpop_fpga_bridge_ops, enabled);
	if (IS_ERR(bridge))
		return PTR_ERR(bridge);
	return devm_add_action_or_reset(&pdev->dev,
					ovpop_fpga_bridge_unregister, bridge);
}

static const struct of_device_id ovpop_fpga_bridge_of_match[] = {
	{ .compatible = "ovpop,test-fpga-bridge" },
	{ }
};
MODULE_DEVICE_TABLE(of, ovpop_fpga_bridge_of_match);

static struct platform_driver ovpop_fpga_bridge_driver = {
	.probe = ovpop_fpga_bridge_probe,
	.driver = {
		.name = "ovpop-test-fpga-bridge",
		.of_match_table = ovpop_fpga_bridge_of_match,
		/* a region holds the bridge, not its devm-allocated state */
		.suppress_bind_attrs = true,
	},
};

#define OVPOP_PL_GPIO_LINES	8

struct ovpop_pl_gpio {
	struct gpio_chip gc;
	unsigned long levels;	/* bit n: line n's level (atomic bitops) */
};

static int ovpop_pl_gpio_get_direction(struct gpio_chip *gc,
				       unsigned int offset)
{
	return GPIO_LINE_DIRECTION_OUT;
}

static int ovpop_pl_gpio_get(struct gpio_chip *gc, unsigned int offset)
{
	struct ovpop_pl_gpio *pl = gpiochip_get_data(gc);

	return test_bit(offset, &pl->levels);
}

/* what ovpop_test_gpio_set() (ovpop_test_compat.h) and direction_output do */
void ovpop_test_gpio_assign(struct gpio_chip *gc, unsigned int offset,
			    int value)
{
	struct ovpop_pl_gpio *pl = gpiochip_get_data(gc);

	assign_bit(offset, &pl->levels, value);
	ovpop_fpga_event("gpio %s %u %d", dev_name(gc->parent), offset, !!value);
}

static int ovpop_pl_gpio_direction_output(struct gpio_chip *gc,
					  unsigned int offset, int value)
{
	ovpop_test_gpio_assign(gc, offset, value);
	return 0;
}

static int ovpop_pl_gpio_probe(struct platform_device *pdev)
{
	struct ovpop_pl_gpio *pl;

	pl = devm_kzalloc(&pdev->dev, sizeof(*pl), GFP_KERNEL);
	if (!pl)
		return -ENOMEM;
	pl->gc.label = dev_name(&pdev->dev);
	pl->gc.parent = &pdev->dev;
	pl->gc.owner = THIS_MODULE;
	pl->gc.base = -1;
	pl->gc.ngpio = OVPOP_PL_GPIO_LINES;
	/* the event list takes a mutex and allocates */
	pl->gc.can_sleep = true;
	pl->gc.get_direction = ovpop_pl_gpio_get_direction;
	pl->gc.direction_output = ovpop_pl_gpio_direction_output;
	pl->gc.get = ovpop_pl_gpio_get;
	pl->gc.set = ovpop_test_gpio_set;
	return devm_gpiochip_add_data(&pdev->dev, &pl->gc, pl);
}

static const struct of_device_id ovpop_pl_gpio_of_match[] = {
	{ .compatible = "ovpop,test-pl-gpio" },
	{ }
};
MODULE_DEVICE_TABLE(of, ovpop_pl_gpio_of_match);

static struct platform_driver ovpop_pl_gpio_driver = {
	.probe = ovpop_pl_gpio_probe,
	.driver = {
		.name = "ovpop-test-pl-gpio",
		.of_match_table = ovpop_pl_gpio_of_match,
	},
};

/* true if @np has an "fpga-region" ancestor */
static bool ovpop_fpga_below_region(struct device_node *np)
{
	struct device_node *p;

	for (p = of_get_parent(np); p; p = of_get_next_parent(p)) {
		if (of_device_is_compatible(p, "fpga-region")) {
			of_node_put(p);
			return true;
		}
	}
	return false;
}

static int ovpop_fpga_bus_notify(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	struct device *dev = data;
	const char *what;

	switch (action) {
	case BUS_NOTIFY_ADD_DEVICE:
		what = "add";
		break;
	case BUS_NOTIFY_DEL_DEVICE:
		what = "del";
		break;
	default:
		return NOTIFY_DONE;
	}
	if (dev->of_node && ovpop_fpga_below_region(dev->of_node))
		ovpop_fpga_event("%s %s %s %pOF", what, dev->bus->name,
				 dev_name(dev), dev->of_node);
	return NOTIFY_DONE;
}

static struct notifier_block ovpop_fpga_platform_nb = {
	.notifier_call = ovpop_fpga_bus_notify,
};

static struct notifier_block ovpop_fpga_amba_nb = {
	.notifier_call = ovpop_fpga_bus_notify,
};

static int ovpop_fpga_events_show(struct seq_file *m, void *v)
{
	struct ovpop_fpga_event *e;

	mutex_lock(&ovpop_fpga_lock);
	list_for_each_entry(e, &ovpop_fpga_events, node)
		seq_printf(m, "%llu %llu %s\n", e->seq, e->ns, e->text);
	mutex_unlock(&ovpop_fpga_lock);
	return 0;
}

static int ovpop_fpga_events_open(struct inode *inode, struct file *file)
{
	return single_open(file, ovpop_fpga_events_show, NULL);
}

static ssize_t ovpop_fpga_events_write(struct file *file,
				       const char __user *buf, size_t count,
				       loff_t *ppos)
{
	ovpop_fpga_clear();
	return count;
}

static const struct file_operations ovpop_fpga_events_fops = {
	.owner = THIS_MODULE,
	.open = ovpop_fpga_events_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = ovpop_fpga_events_write,
};

static struct dentry *ovpop_fpga_dir;

static int __init ovpop_fpga_init(void)
{
	int ret;

	ret = bus_register_notifier(&platform_bus_type, &ovpop_fpga_platform_nb);
	if (ret)
		return ret;
#ifdef CONFIG_ARM_AMBA
	ret = bus_register_notifier(&amba_bustype, &ovpop_fpga_amba_nb);
	if (ret)
		goto err_platform;
#endif
	ovpop_fpga_dir = debugfs_create_dir("ovpop_fpga", NULL);
	debugfs_create_file("events", 0600, ovpop_fpga_dir, NULL,
			    &ovpop_fpga_events_fops);

	ret = platform_driver_register(&ovpop_fpga_bridge_driver);
	if (ret)
		goto err_debugfs;
	ret = platform_driver_register(&ovpop_fpga_driver);
	if (ret)
		goto err_bridge;
	ret = platform_driver_register(&ovpop_pl_gpio_driver);
	if (ret)
		goto err_mgr;
	return 0;

err_mgr:
	platform_driver_unregister(&ovpop_fpga_driver);
err_bridge:
	platform_driver_unregister(&ovpop_fpga_bridge_driver);
err_debugfs:
	debugfs_remove_recursive(ovpop_fpga_dir);
#ifdef CONFIG_ARM_AMBA
	bus_unregister_notifier(&amba_bustype, &ovpop_fpga_amba_nb);
err_platform:
#endif
	bus_unregister_notifier(&platform_bus_type, &ovpop_fpga_platform_nb);
	return ret;
}
module_init(ovpop_fpga_init);

static void __exit ovpop_fpga_exit(void)
{
	platform_driver_unregister(&ovpop_pl_gpio_driver);
	platform_driver_unregister(&ovpop_fpga_driver);
	platform_driver_unregister(&ovpop_fpga_bridge_driver);
	debugfs_remove_recursive(ovpop_fpga_dir);
#ifdef CONFIG_ARM_AMBA
	bus_unregister_notifier(&amba_bustype, &ovpop_fpga_amba_nb);
#endif
	bus_unregister_notifier(&platform_bus_type, &ovpop_fpga_platform_nb);
	ovpop_fpga_clear();
}
module_exit(ovpop_fpga_exit);

MODULE_DESCRIPTION("ovpop test FPGA manager, bridge and PL GPIO, PL device recorder");
MODULE_LICENSE("GPL");
