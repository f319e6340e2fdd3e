// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's helper module (scripts/bench.sh, tests/guest/mode-bench.sh).
 * In debugfs, ovpop_bench/:
 *
 *   clock    read: ktime_get_ns(), so that a shell can time a write
 *   apply    write a firmware name (e.g. ovpop/bench/a-plat-100.dtbo): the
 *            kernel's own path, of_overlay_fdt_apply() with nothing but the
 *            OF core creating devices; one overlay at a time
 *   remove   write anything: of_overlay_remove() of that overlay
 *   times    read: "<apply ns> <remove ns> <notifier ns>", how long the
 *            last of_overlay_fdt_apply() and of_overlay_remove() took, and
 *            the reconfig notifier chain (where the kernel's
 *            of_platform_notify(), or ovpop's notifier, creates the
 *            devices) since the module was loaded, whoever applied: a
 *            notifier before the others (priority 2) and one after them
 *            (-1) take the time; readers take the difference around an
 *            apply
 *   floor    write "N mixed|platform": registers N devices directly, without
 *            DT (every second one an AMBA device in "mixed"), with the
 *            resources the benchmark overlays give their nodes; write "0":
 *            unregisters them. Read: "<N> <loop ns> <unregister ns>
 *            <device_add ns>" of the last runs, timed in the kernel around
 *            the loops and around device_add()/amba_device_add().
 *   settle   write anything: waits for pending RCU callbacks (rcu_barrier()),
 *            so that the frees a removal deferred run before the next timed
 *            apply, not during it (whichever variant it is)
 *
 * The floor is what registering these devices costs at least: the same
 * bus, resources and names ovpop gives them, minus the device tree. Like
 * of_platform_populate(), it does not claim platform devices' memory
 * ranges (platform_device_add() would, and iomem insertion is linear in
 * the number of siblings); AMBA devices claim theirs, as amba_device_add()
 * always does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/amba/bus.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/firmware.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"

/* The benchmark overlays' addresses: scripts/bench.sh */
#define BENCH_BASE	0x0d000000
#define BENCH_STRIDE	0x1000
#define BENCH_MAX	8192
/* No AMBA driver matches it: the device stays unbound, as in the overlays */
#define BENCH_PERIPHID	0x000b3e4c

/* Protects everything below; taken alone */
static DEFINE_MUTEX(bench_lock);
static struct device **bench_devs;
static unsigned int bench_n;
static u64 bench_add_ns, bench_del_ns, bench_reg_ns;
static int bench_ovcs;
static u64 bench_apply_ns, bench_remove_ns, bench_notify_ns;
/* Set by the first of the notifier pair, for the second; under the OF overlay mutex */
static u64 bench_notify_t0;

static int bench_notify_first(struct notifier_block *nb, unsigned long action,
			      void *arg)
{
	bench_notify_t0 = ktime_get_ns();
	return NOTIFY_OK;
}

/* Not reached when a notifier stops the chain: ovpop does, the kernel not */
static int bench_notify_last(struct notifier_block *nb, unsigned long action,
			     void *arg)
{
	if (bench_notify_t0)
		bench_notify_ns += ktime_get_ns() - bench_notify_t0;
	bench_notify_t0 = 0;
	return NOTIFY_OK;
}

static struct notifier_block bench_first_nb = {
	.notifier_call = bench_notify_first,
	.priority = 2,	/* before ovpop (1) and the kernel's (0) */
};

static struct notifier_block bench_last_nb = {
	.notifier_call = bench_notify_last,
	.priority = -1,
};

static struct dentry *bench_dir;

static struct device *bench_platform(unsigned int i)
{
	struct resource res = DEFINE_RES_MEM(BENCH_BASE + i * BENCH_STRIDE,
					     BENCH_STRIDE);
	struct platform_device *pdev;
	u64 t0;
	int ret;

	pdev = platform_device_alloc("bench", PLATFORM_DEVID_NONE);
	if (!pdev)
		return ERR_PTR(-ENOMEM);
	ret = platform_device_add_resources(pdev, &res, 1);
	if (ret)
		goto err;
	/* as of_device_alloc() + of_device_add(): named "<addr>.bench" */
	pdev->dev.parent = &platform_bus;
	pdev->dev.bus = &platform_bus_type;
	ret = dev_set_name(&pdev->dev, "%llx.bench", (u64)res.start);
	if (ret)
		goto err;
	t0 = ktime_get_ns();
	ret = device_add(&pdev->dev);
	bench_reg_ns += ktime_get_ns() - t0;
	if (ret)
		goto err;
	return &pdev->dev;
err:
	platform_device_put(pdev);
	return ERR_PTR(ret);
}

static struct device *bench_amba(unsigned int i)
{
	struct amba_device *adev;
	u64 t0;
	int ret;

	adev = amba_device_alloc(NULL, BENCH_BASE + i * BENCH_STRIDE,
				 BENCH_STRIDE);
	if (!adev)
		return ERR_PTR(-ENOMEM);
	adev->periphid = BENCH_PERIPHID;
	adev->dev.parent = &platform_bus;
	ret = dev_set_name(&adev->dev, "%llx.bench", (u64)adev->res.start);
	if (!ret) {
		t0 = ktime_get_ns();
		ret = amba_device_add(adev, &iomem_resource);
		bench_reg_ns += ktime_get_ns() - t0;
	}
	if (ret) {
		amba_device_put(adev);
		return ERR_PTR(ret);
	}
	return &adev->dev;
}

static void bench_floor_del(void)
{
	u64 t0 = ktime_get_ns();

	while (bench_n) {
		struct device *dev = bench_devs[--bench_n];

		if (dev->bus == &amba_bustype)
			amba_device_unregister(to_amba_device(dev));
		else
			platform_device_unregister(to_platform_device(dev));
	}
	bench_del_ns = ktime_get_ns() - t0;
	kvfree(bench_devs);
	bench_devs = NULL;
}

static int bench_floor_add(unsigned int n, bool mixed)
{
	struct device *dev;
	u64 t0;

	bench_devs = kvcalloc(n, sizeof(*bench_devs), GFP_KERNEL);
	if (!bench_devs)
		return -ENOMEM;
	bench_reg_ns = 0;
	t0 = ktime_get_ns();
	for (bench_n = 0; bench_n < n; bench_n++) {
		dev = mixed && bench_n % 2 ? bench_amba(bench_n) :
					     bench_platform(bench_n);
		if (IS_ERR(dev)) {
			pr_err("floor: device %u: %ld\n", bench_n, PTR_ERR(dev));
			bench_floor_del();
			return PTR_ERR(dev);
		}
		bench_devs[bench_n] = dev;
	}
	bench_add_ns = ktime_get_ns() - t0;
	return 0;
}

/* Copies a short command from user space, without the final newline */
static int bench_arg(const char __user *ubuf, size_t len, char *buf,
		     size_t size)
{
	if (!len || len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	strim(buf);
	return 0;
}

static ssize_t bench_floor_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	char buf[32], kind[16] = "";
	unsigned int n;
	int ret;

	ret = bench_arg(ubuf, len, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "%u %15s", &n, kind) < 1 || n > BENCH_MAX ||
	    (n && strcmp(kind, "mixed") && strcmp(kind, "platform")))
		return -EINVAL;
	mutex_lock(&bench_lock);
	if (!n && bench_devs)
		bench_floor_del();
	else if (n && !bench_devs)
		ret = bench_floor_add(n, !strcmp(kind, "mixed"));
	else
		ret = -EBUSY;
	mutex_unlock(&bench_lock);
	return ret ?: len;
}

static ssize_t bench_floor_read(struct file *file, char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[80];
	int n;

	mutex_lock(&bench_lock);
	n = scnprintf(buf, sizeof(buf), "%u %llu %llu %llu\n", bench_n,
		      bench_add_ns, bench_del_ns, bench_reg_ns);
	mutex_unlock(&bench_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations bench_floor_fops = {
	.owner = THIS_MODULE,
	.read = bench_floor_read,
	.write = bench_floor_write,
	.llseek = default_llseek,
};

static ssize_t bench_apply_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	const struct firmware *fw;
	char name[128];
	u64 t0;
	int ret;

	ret = bench_arg(ubuf, len, name, sizeof(name));
	if (ret)
		return ret;
	mutex_lock(&bench_lock);
	if (bench_ovcs) {
		ret = -EBUSY;
		goto out;
	}
	ret = request_firmware(&fw, name, NULL);
	if (ret)
		goto out;
	t0 = ktime_get_ns();
	ret = ovpop_compat_overlay_apply(fw->data, fw->size, &bench_ovcs,
					 NULL);
	bench_apply_ns = ktime_get_ns() - t0;
	release_firmware(fw);
	if (ret) {
		pr_err("%s: apply failed: %d\n", name, ret);
		if (bench_ovcs)
			of_overlay_remove(&bench_ovcs);
		bench_ovcs = 0;
	}
out:
	mutex_unlock(&bench_lock);
	return ret ?: len;
}

static const struct file_operations bench_apply_fops = {
	.owner = THIS_MODULE,
	.write = bench_apply_write,
	.llseek = default_llseek,
};

static ssize_t bench_remove_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	u64 t0;
	int ret;

	mutex_lock(&bench_lock);
	if (bench_ovcs) {
		t0 = ktime_get_ns();
		ret = of_overlay_remove(&bench_ovcs);
		bench_remove_ns = ktime_get_ns() - t0;
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&bench_lock);
	return ret ?: len;
}

static const struct file_operations bench_remove_fops = {
	.owner = THIS_MODULE,
	.write = bench_remove_write,
	.llseek = default_llseek,
};

static ssize_t bench_times_read(struct file *file, char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[72];
	int n;

	mutex_lock(&bench_lock);
	n = scnprintf(buf, sizeof(buf), "%llu %llu %llu\n", bench_apply_ns,
		      bench_remove_ns, bench_notify_ns);
	mutex_unlock(&bench_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations bench_times_fops = {
	.owner = THIS_MODULE,
	.read = bench_times_read,
	.llseek = default_llseek,
};

static int bench_settle_set(void *data, u64 val)
{
	rcu_barrier();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(bench_settle_fops, NULL, bench_settle_set, "%llu\n");

static int bench_clock_get(void *data, u64 *val)
{
	*val = ktime_get_ns();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(bench_clock_fops, bench_clock_get, NULL, "%llu\n");

static int __init bench_init(void)
{
	int ret;

	ret = of_reconfig_notifier_register(&bench_first_nb);
	if (ret)
		return ret;
	ret = of_reconfig_notifier_register(&bench_last_nb);
	if (ret) {
		of_reconfig_notifier_unregister(&bench_first_nb);
		return ret;
	}
	bench_dir = debugfs_create_dir("ovpop_bench", NULL);
	debugfs_create_file("clock", 0400, bench_dir, NULL, &bench_clock_fops);
	debugfs_create_file("floor", 0600, bench_dir, NULL, &bench_floor_fops);
	debugfs_create_file("apply", 0200, bench_dir, NULL, &bench_apply_fops);
	debugfs_create_file("remove", 0200, bench_dir, NULL, &bench_remove_fops);
	debugfs_create_file("times", 0400, bench_dir, NULL, &bench_times_fops);
	debugfs_create_file("settle", 0200, bench_dir, NULL, &bench_settle_fops);
	return 0;
}
module_init(bench_init);

static void __exit bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	of_reconfig_notifier_unregister(&bench_last_nb);
	of_reconfig_notifier_unregister(&bench_first_nb);
	mutex_lock(&bench_lock);
	if (bench_devs)
		bench_floor_del();
	if (bench_ovcs && of_overlay_remove(&bench_ovcs))
		pr_err("the benchmark overlay cannot be removed\n");
	mutex_unlock(&bench_lock);
}
module_exit(bench_exit);

MODULE_DESCRIPTION("ovpop benchmark helper: kernel overlay path, device-registration floor, clock");
MODULE_LICENSE("GPL");
