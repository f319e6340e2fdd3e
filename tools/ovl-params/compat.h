/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's spellings for a program built outside the kernel: ovl-params
 * is written in kernel style (scripts/check.sh runs checkpatch on it; here
 * only, its checks for these very definitions are expected).
 */
#ifndef OVL_PARAMS_COMPAT_H
#define OVL_PARAMS_COMPAT_H

#include <stdint.h>

#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __noreturn	__attribute__((noreturn))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

typedef uint8_t u8;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;

#endif
