/* SPDX-License-Identifier: GPL-2.0 */
/* Overlay blobs linked into the KUnit module by Kbuild (%.dtbo.o) */
#ifndef _OVPOP_KUNIT_BLOBS_H
#define _OVPOP_KUNIT_BLOBS_H

#include <linux/types.h>

extern u8 __dtbo_kunit_tree_begin[], __dtbo_kunit_tree_end[];
extern u8 __dtbo_kunit_add_begin[], __dtbo_kunit_add_end[];
extern u8 __dtbo_kunit_disable_begin[], __dtbo_kunit_disable_end[];
extern u8 __dtbo_kunit_clash_begin[], __dtbo_kunit_clash_end[];

#endif /* _OVPOP_KUNIT_BLOBS_H */
