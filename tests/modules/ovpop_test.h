/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between the ovpop test modules and the test overlays.
 */
#ifndef _OVPOP_TEST_H
#define _OVPOP_TEST_H

/*
 * The arm,primecell-periphid the test overlays force: designer 0x5a, part
 * 0x0c5, revision 0. No in-tree AMBA driver matches it.
 */
#define OVPOP_TEST_PERIPHID	0x0005a0c5

/* platform_data that ovpop_consumer passes through auxdata */
struct ovpop_test_pdata {
	char label[32];
};

#endif /* _OVPOP_TEST_H */
