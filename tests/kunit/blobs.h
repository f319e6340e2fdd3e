/* SPDX-License-Identifier: GPL-2.0 */
/* Overlay blobs linked into the KUnit module by Kbuild (%.blob.o) */
#ifndef _OVPOP_KUNIT_BLOBS_H
#define _OVPOP_KUNIT_BLOBS_H

#include <linux/types.h>

extern u8 ovpop_blob_kunit_tree_begin[], ovpop_blob_kunit_tree_end[];
extern u8 ovpop_blob_kunit_add_begin[], ovpop_blob_kunit_add_end[];
extern u8 ovpop_blob_kunit_disable_begin[], ovpop_blob_kunit_disable_end[];
extern u8 ovpop_blob_kunit_clash_begin[], ovpop_blob_kunit_clash_end[];
extern u8 ovpop_blob_kunit_names_begin[], ovpop_blob_kunit_names_end[];

#endif /* _OVPOP_KUNIT_BLOBS_H */
