/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel-version differences of the test modules (the module's own are
 * in module/compat.h). Each shim names the version that needs it.
 */
#ifndef _OVPOP_TEST_COMPAT_H
#define _OVPOP_TEST_COMPAT_H

#include <linux/gpio/driver.h>
#include <linux/version.h>

/*
 * ovpop_test_gpio_set() is the gpio_chip::set of the test modules' GPIO
 * controller; it calls ovpop_test_gpio_assign(), which that module defines.
 * The callback returns int since 6.17 (commit d9d87d90cc0b, "treewide:
 * rename GPIO set callbacks back to their original names"), void before.
 */
void ovpop_test_gpio_assign(struct gpio_chip *gc, unsigned int offset,
			    int value);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
static inline int ovpop_test_gpio_set(struct gpio_chip *gc,
				      unsigned int offset, int value)
{
	ovpop_test_gpio_assign(gc, offset, value);
	return 0;
}
#else
static inline void ovpop_test_gpio_set(struct gpio_chip *gc,
				       unsigned int offset, int value)
{
	ovpop_test_gpio_assign(gc, offset, value);
}
#endif

#endif /* _OVPOP_TEST_COMPAT_H */
