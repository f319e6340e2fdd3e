// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the ovpop core: populate by the kernel's rules, auxdata,
 * depopulate, and the devices of overlays applied to a populated subtree.
 *
 * Each test applies kunit-tree.dtso (/ovpop-kunit, which the managed root
 * gives no device) and populates that subtree itself.
 */
#include <kunit/test.h>
#include <linux/amba/bus.h>
#include <linux/device.h>
#include <linux/of.h>
#include <linux/of_platform.h>
#include <linux/platform_device.h>

#include "compat.h"
#include "ovpop.h"
#include "blobs.h"

#define KROOT "/ovpop-kunit"
#define PLATFORM false
#define AMBA true

static int kunit_pdata_addr = 1;
static int kunit_pdata_compat = 2;

static const struct of_dev_auxdata kunit_auxdata[] = {
	OF_DEV_AUXDATA("ovpop,kunit-dev", 0x0c100000, "kunit-named",
		       &kunit_pdata_addr),
	OF_DEV_AUXDATA("ovpop,kunit-dev", 0x0c104000, "kunit-late", NULL),
	OF_DEV_AUXDATA("arm,primecell", 0, NULL, &kunit_pdata_compat),
	{ /* sentinel */ }
};

/* Overlays a test applied, removed newest first by kunit_exit() */
#define KUNIT_MAX_OVERLAYS 4

struct kunit_ctx {
	struct device_node *root;
	int ids[KUNIT_MAX_OVERLAYS];
	int nr_ids;
	bool populated;
};

static void kunit_track(struct kunit *test, int id)
{
	struct kunit_ctx *ctx = test->priv;

	KUNIT_ASSERT_LT(test, ctx->nr_ids, KUNIT_MAX_OVERLAYS);
	ctx->ids[ctx->nr_ids++] = id;
}

/* Apply a blob; whatever the kernel registered is removed at exit */
static int kunit_try_apply(struct kunit *test, u8 *begin, u8 *end, int *id)
{
	int ret;

	*id = 0;
	ret = ovpop_compat_overlay_apply(begin, end - begin, id, NULL);
	if (*id)
		kunit_track(test, *id);
	return ret;
}

static int kunit_apply(struct kunit *test, u8 *begin, u8 *end)
{
	int id;

	KUNIT_ASSERT_EQ(test, kunit_try_apply(test, begin, end, &id), 0);
	return id;
}

/* Removes the newest overlay, which @id must be */
static void kunit_remove(struct kunit *test, int id)
{
	struct kunit_ctx *ctx = test->priv;

	KUNIT_ASSERT_GT(test, ctx->nr_ids, 0);
	KUNIT_ASSERT_EQ(test, ctx->ids[ctx->nr_ids - 1], id);
	ctx->nr_ids--;
	KUNIT_EXPECT_EQ(test, of_overlay_remove(&id), 0);
}

/*
 * The device of @path on the AMBA or the platform bus, with a reference, or
 * NULL. (A flag, not a bus: the buses' constness changed in 6.12.)
 */
static struct device *kunit_dev(const char *path, bool amba)
{
	struct device_node *np = of_find_node_by_path(path);
	struct device *dev;

	if (!np)
		return NULL;
	if (amba)
		dev = bus_find_device_by_of_node(&amba_bustype, np);
	else
		dev = bus_find_device_by_of_node(&platform_bus_type, np);
	of_node_put(np);
	return dev;
}

static bool kunit_has_dev(const char *path)
{
	struct device *dev = kunit_dev(path, PLATFORM);

	if (!dev)
		dev = kunit_dev(path, AMBA);
	put_device(dev);
	return dev;
}

static bool kunit_flag(const char *path, unsigned long flag)
{
	struct device_node *np = of_find_node_by_path(path);
	bool set;

	if (!np)
		return false;
	set = of_node_check_flag(np, flag);
	of_node_put(np);
	return set;
}

static void kunit_populate(struct kunit *test)
{
	struct kunit_ctx *ctx = test->priv;

	KUNIT_ASSERT_EQ(test, ovpop_populate(ctx->root, NULL, kunit_auxdata,
					     NULL), 0);
	ctx->populated = true;
}

static void kunit_depopulate(struct kunit *test)
{
	struct kunit_ctx *ctx = test->priv;

	ovpop_depopulate(ctx->root);
	ctx->populated = false;
}

static int kunit_init(struct kunit *test)
{
	struct kunit_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	kunit_apply(test, ovpop_blob_kunit_tree_begin, ovpop_blob_kunit_tree_end);
	ctx->root = of_find_node_by_path(KROOT);
	KUNIT_ASSERT_NOT_NULL(test, ctx->root);
	return 0;
}

static void kunit_exit(struct kunit *test)
{
	struct kunit_ctx *ctx = test->priv;

	if (ctx->populated)
		ovpop_depopulate(ctx->root);
	of_node_put(ctx->root);
	while (ctx->nr_ids)
		kunit_remove(test, ctx->ids[ctx->nr_ids - 1]);
}

static void populate_follows_kernel_rules(struct kunit *test)
{
	struct device *bus, *dev, *adev;

	kunit_populate(test);

	dev = kunit_dev(KROOT "/dev@c100000", PLATFORM);
	KUNIT_EXPECT_NOT_NULL(test, dev);
	put_device(dev);

	adev = kunit_dev(KROOT "/amba@c101000", AMBA);
	KUNIT_ASSERT_NOT_NULL(test, adev);
	KUNIT_EXPECT_EQ(test, to_amba_device(adev)->periphid, 0x00ab1234);
	KUNIT_EXPECT_EQ(test, to_amba_device(adev)->res.start, 0x0c101000);
	put_device(adev);
	KUNIT_EXPECT_NULL(test, kunit_dev(KROOT "/amba@c101000",
					  PLATFORM));

	bus = kunit_dev(KROOT "/bus@c110000", PLATFORM);
	KUNIT_ASSERT_NOT_NULL(test, bus);
	dev = kunit_dev(KROOT "/bus@c110000/dev@100", PLATFORM);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_PTR_EQ(test, dev->parent, bus);
	put_device(dev);
	put_device(bus);

	bus = kunit_dev(KROOT "/bus@c110000/bus@1000", PLATFORM);
	KUNIT_ASSERT_NOT_NULL(test, bus);
	dev = kunit_dev(KROOT "/bus@c110000/bus@1000/dev@1100",
			PLATFORM);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_PTR_EQ(test, dev->parent, bus);
	put_device(dev);
	put_device(bus);

	KUNIT_EXPECT_TRUE(test, kunit_flag(KROOT "/bus@c110000",
					   OF_POPULATED_BUS));
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/disabled@c102000"));
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/nocompat@c103000"));
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/opp-table"));
	KUNIT_EXPECT_TRUE(test, kunit_has_dev(KROOT "/leaf@c105000"));
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/leaf@c105000/notbus@0"));
}

static void populate_applies_auxdata(struct kunit *test)
{
	struct device *dev;

	kunit_populate(test);

	dev = kunit_dev(KROOT "/dev@c100000", PLATFORM);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_STREQ(test, dev_name(dev), "kunit-named");
	KUNIT_EXPECT_PTR_EQ(test, dev->platform_data, &kunit_pdata_addr);
	put_device(dev);

	/* compatible-only entry: no name, so the default name */
	dev = kunit_dev(KROOT "/amba@c101000", AMBA);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_STREQ(test, dev_name(dev), "c101000.amba");
	KUNIT_EXPECT_PTR_EQ(test, dev->platform_data, &kunit_pdata_compat);
	put_device(dev);

	/* another address: no auxdata */
	dev = kunit_dev(KROOT "/bus@c110000/dev@100", PLATFORM);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_STREQ(test, dev_name(dev), "c110100.dev");
	KUNIT_EXPECT_NULL(test, dev->platform_data);
	put_device(dev);
}

static void depopulate_leaves_nothing(struct kunit *test)
{
	static const char * const paths[] = {
		KROOT "/dev@c100000", KROOT "/amba@c101000",
		KROOT "/leaf@c105000", KROOT "/bus@c110000",
		KROOT "/bus@c110000/dev@100", KROOT "/bus@c110000/bus@1000",
		KROOT "/bus@c110000/bus@1000/dev@1100",
	};
	int i;

	kunit_populate(test);
	kunit_depopulate(test);

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		KUNIT_EXPECT_FALSE_MSG(test, kunit_has_dev(paths[i]), "%s",
				       paths[i]);
		KUNIT_EXPECT_FALSE_MSG(test, kunit_flag(paths[i], OF_POPULATED),
				       "%s", paths[i]);
		KUNIT_EXPECT_FALSE_MSG(test,
				       kunit_flag(paths[i], OF_POPULATED_BUS),
				       "%s", paths[i]);
	}
	KUNIT_EXPECT_FALSE(test, kunit_flag(KROOT, OF_POPULATED_BUS));
}

static void populate_twice_is_refused_and_harmless(struct kunit *test)
{
	struct kunit_ctx *ctx = test->priv;
	struct device *before, *after;

	kunit_populate(test);
	before = kunit_dev(KROOT "/dev@c100000", PLATFORM);
	KUNIT_EXPECT_EQ(test, ovpop_populate(ctx->root, NULL, NULL, NULL),
			-EEXIST);
	after = kunit_dev(KROOT "/dev@c100000", PLATFORM);
	KUNIT_EXPECT_NOT_NULL(test, after);
	KUNIT_EXPECT_PTR_EQ(test, before, after);
	put_device(after);
	put_device(before);

	/* and again after a depopulate */
	kunit_depopulate(test);
	kunit_populate(test);
	KUNIT_EXPECT_TRUE(test, kunit_has_dev(KROOT "/dev@c100000"));
}

static void devm_populate_needs_a_node(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, devm_ovpop_populate(NULL), -EINVAL);
}

static struct kunit_case ovpop_populate_cases[] = {
	KUNIT_CASE(populate_follows_kernel_rules),
	KUNIT_CASE(populate_applies_auxdata),
	KUNIT_CASE(depopulate_leaves_nothing),
	KUNIT_CASE(populate_twice_is_refused_and_harmless),
	KUNIT_CASE(devm_populate_needs_a_node),
	{}
};

static struct kunit_suite ovpop_populate_suite = {
	.name = "ovpop_populate",
	.init = kunit_init,
	.exit = kunit_exit,
	.test_cases = ovpop_populate_cases,
};

static void overlay_adds_bus_children_and_primecell(struct kunit *test)
{
	struct device *bus, *dev;
	int id;

	kunit_populate(test);
	id = kunit_apply(test, ovpop_blob_kunit_add_begin, ovpop_blob_kunit_add_end);

	bus = kunit_dev(KROOT "/newbus@c120000", PLATFORM);
	KUNIT_ASSERT_NOT_NULL(test, bus);
	dev = kunit_dev(KROOT "/newbus@c120000/dev@0", PLATFORM);
	KUNIT_EXPECT_NOT_NULL(test, dev);
	if (dev)
		KUNIT_EXPECT_PTR_EQ(test, dev->parent, bus);
	put_device(dev);

	dev = kunit_dev(KROOT "/newbus@c120000/amba@1000", AMBA);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_PTR_EQ(test, dev->parent, bus);
	KUNIT_EXPECT_EQ(test, to_amba_device(dev)->periphid, 0x00ab1235);
	KUNIT_EXPECT_PTR_EQ(test, dev->platform_data, &kunit_pdata_compat);
	put_device(dev);
	put_device(bus);

	/* the kernel alone gives this one a platform device */
	KUNIT_EXPECT_FALSE(test,
			   kunit_has_dev(KROOT "/newbus@c120000/nocompat@2000"));

	/* auxdata of the population applies to overlay nodes */
	dev = kunit_dev(KROOT "/dev@c104000", PLATFORM);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_STREQ(test, dev_name(dev), "kunit-late");
	put_device(dev);

	kunit_remove(test, id);
	KUNIT_EXPECT_NULL(test, of_find_node_by_path(KROOT "/newbus@c120000"));
	KUNIT_EXPECT_TRUE(test, kunit_has_dev(KROOT "/dev@c100000"));
}

static void overlay_disable_and_enable_bus(struct kunit *test)
{
	int id;

	kunit_populate(test);
	id = kunit_apply(test, ovpop_blob_kunit_disable_begin,
			 ovpop_blob_kunit_disable_end);
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/bus@c110000"));
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/bus@c110000/dev@100"));
	KUNIT_EXPECT_FALSE(test,
			   kunit_has_dev(KROOT "/bus@c110000/bus@1000/dev@1100"));
	KUNIT_EXPECT_FALSE(test, kunit_flag(KROOT "/bus@c110000",
					    OF_POPULATED_BUS));

	kunit_remove(test, id);
	KUNIT_EXPECT_TRUE(test, kunit_has_dev(KROOT "/bus@c110000"));
	KUNIT_EXPECT_TRUE(test,
			  kunit_has_dev(KROOT "/bus@c110000/bus@1000/dev@1100"));
}

static void overlay_resource_clash_leaves_no_device(struct kunit *test)
{
	int ret, id;

	kunit_populate(test);
	/* the OF core fails the apply with our error and leaves it applied */
	ret = kunit_try_apply(test, ovpop_blob_kunit_clash_begin,
			      ovpop_blob_kunit_clash_end, &id);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_ASSERT_NE(test, id, 0);
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/clash@c101000"));
	KUNIT_EXPECT_FALSE(test, kunit_flag(KROOT "/clash@c101000",
					    OF_POPULATED));
	/* the device holding the range is untouched */
	KUNIT_EXPECT_TRUE(test, kunit_has_dev(KROOT "/amba@c101000"));
	kunit_remove(test, id);
}

static void depopulate_takes_overlay_devices(struct kunit *test)
{
	int id;

	kunit_populate(test);
	id = kunit_apply(test, ovpop_blob_kunit_add_begin, ovpop_blob_kunit_add_end);
	KUNIT_EXPECT_TRUE(test, kunit_has_dev(KROOT "/newbus@c120000/dev@0"));
	kunit_depopulate(test);
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/newbus@c120000"));
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/newbus@c120000/dev@0"));
	KUNIT_EXPECT_FALSE(test,
			   kunit_has_dev(KROOT "/newbus@c120000/amba@1000"));
	kunit_remove(test, id);
}

static void overlay_outside_population_is_left_alone(struct kunit *test)
{
	int id;

	/* not populated: /ovpop-kunit is no bus, nothing may appear */
	id = kunit_apply(test, ovpop_blob_kunit_add_begin, ovpop_blob_kunit_add_end);
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/newbus@c120000"));
	KUNIT_EXPECT_FALSE(test, kunit_has_dev(KROOT "/dev@c104000"));
	kunit_remove(test, id);
}

/*
 * @dev was named and given resources by ovpop, as the kernel's
 * of_device_alloc() would have: compare with what it gives now.
 */
static void kunit_expect_kernel_device(struct kunit *test, struct device *dev)
{
	struct platform_device *ref;
	struct device_node *np;
	struct resource *res;
	unsigned int i, n;

	ref = of_device_alloc(dev->of_node, NULL, NULL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	KUNIT_EXPECT_STREQ(test, dev_name(dev), dev_name(&ref->dev));
	if (dev->bus == &amba_bustype) {
		res = &to_amba_device(dev)->res;
		n = 1;
	} else {
		res = to_platform_device(dev)->resource;
		n = to_platform_device(dev)->num_resources;
	}
	KUNIT_EXPECT_EQ_MSG(test, n, ref->num_resources, "%s", dev_name(dev));
	for (i = 0; i < min(n, ref->num_resources); i++) {
		KUNIT_EXPECT_EQ(test, res[i].start, ref->resource[i].start);
		KUNIT_EXPECT_EQ(test, res[i].end, ref->resource[i].end);
		KUNIT_EXPECT_EQ(test, res[i].flags, ref->resource[i].flags);
		KUNIT_EXPECT_STREQ(test, res[i].name, ref->resource[i].name);
	}
	/*
	 * The release may come late (DEBUG_KOBJECT_RELEASE), after the
	 * overlay is removed: drop the node reference now, not there.
	 */
	np = ref->dev.of_node;
	device_set_node(&ref->dev, NULL);
	of_node_put(np);
	platform_device_put(ref);
}

static void overlay_devices_named_as_kernel(struct kunit *test)
{
	static const char * const paths[] = {
		KROOT "/regs@c130000", KROOT "/mask@c131000",
		KROOT "/many@c132000", KROOT "/noreg", KROOT "/isolated",
		KROOT "/isolated/dev@10", KROOT "/typed@c133000",
		KROOT "/typed@c133000/dev@20", KROOT "/amba@c134000",
	};
	struct device *dev;
	int i;

	kunit_populate(test);
	kunit_apply(test, ovpop_blob_kunit_names_begin,
		    ovpop_blob_kunit_names_end);
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		dev = kunit_dev(paths[i], PLATFORM);
		if (!dev)
			dev = kunit_dev(paths[i], AMBA);
		KUNIT_ASSERT_NOT_NULL_MSG(test, dev, "%s", paths[i]);
		kunit_expect_kernel_device(test, dev);
		put_device(dev);
	}
	/* the values themselves, where they are easy to tell */
	dev = kunit_dev(KROOT "/mask@c131000", PLATFORM);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_STREQ(test, dev_name(dev), "c131000.4.mask");
	put_device(dev);
	dev = kunit_dev(KROOT "/isolated/dev@10", PLATFORM);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_STREQ(test, dev_name(dev), "ovpop-kunit:isolated:dev@10");
	KUNIT_EXPECT_EQ(test, to_platform_device(dev)->num_resources, 0);
	put_device(dev);
}

static struct kunit_case ovpop_notify_cases[] = {
	KUNIT_CASE(overlay_adds_bus_children_and_primecell),
	KUNIT_CASE(overlay_disable_and_enable_bus),
	KUNIT_CASE(overlay_resource_clash_leaves_no_device),
	KUNIT_CASE(depopulate_takes_overlay_devices),
	KUNIT_CASE(overlay_outside_population_is_left_alone),
	KUNIT_CASE(overlay_devices_named_as_kernel),
	{}
};

static struct kunit_suite ovpop_notify_suite = {
	.name = "ovpop_notify",
	.init = kunit_init,
	.exit = kunit_exit,
	.test_cases = ovpop_notify_cases,
};

kunit_test_suites(&ovpop_populate_suite, &ovpop_notify_suite);

MODULE_DESCRIPTION("KUnit tests for ovpop");
MODULE_LICENSE("GPL");
