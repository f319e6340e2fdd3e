/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ovl-params: Raspberry Pi style overlay parameters (__overrides__) set in
 * a copy of an overlay blob, as Raspberry Pi's dtoverlay sets them, over
 * libfdt. See main.c for the command line and docs/ovl.md for the rules.
 */
#ifndef OVL_PARAMS_H
#define OVL_PARAMS_H

#include <stddef.h>

#include "compat.h"

/* dtoverlay copies every value into a 256-byte buffer: the same limit */
#define OP_VALUE_MAX	255

/* blobs larger than this are not overlays ovpop's loader takes either */
#define OP_BLOB_MAX	(16 << 20)

/* exit statuses, as ovl's: refused before anything changed; system */
#define OP_REFUSED	3
#define OP_SYSTEM	4

/* one blob being edited in place, with room to grow */
struct op_blob {
	void *fdt;
	size_t cap;		/* bytes allocated at fdt */
	const char *file;	/* for messages */
	const char *param;	/* the parameter being set, for messages */
	int listing;		/* op_list_params(): lookups select nothing */
};

/* the kinds of target dtoverlay_extract_override() tells apart */
enum op_type {
	OP_END,
	OP_STRING,
	OP_INTEGER,
	OP_BOOLEAN,
	OP_BOOLEAN_INV,
	OP_BYTES,
	OP_SWITCH,	/* phandle 0: a fragment switch program */
};

/* one parsed target of a parameter */
struct op_target {
	enum op_type type;
	u32 phandle;
	char prop[256];		/* the property name */
	int off;		/* byte offset of an integer */
	int size;		/* its width: 1, 2, 4 or 8 */
	char value[OP_VALUE_MAX + 1];	/* the user's, a literal's or a lookup's */
	long cell;		/* offset in the declaration of a cell literal, or -1 */
	const char *decl;	/* the declaration string, for messages */
};

/* messages: "ovl-params: parameter P: ...", then the exit status */
__printf(3, 4) __noreturn
void op_fail(const struct op_blob *b, int status, const char *fmt, ...);

/* override.c */
char *op_copy_prop(const struct op_blob *b, const void *val, int len);
void op_set_param(struct op_blob *b, const char *name, const char *value);
void op_list_params(struct op_blob *b);

/* value.c */
int op_parse_int(const char *s, u64 *v, int *negative);
int op_fits(u64 v, int negative, int size);
int op_unescape(const char *s, char *out, size_t *len);
int op_bytestring(const char *s, u8 *out, size_t *len, const char **bad);
const char *op_status_word(const char *s);

/* tree.c */
__printf(4, 5)
void op_fmt(const struct op_blob *b, char *buf, size_t n, const char *fmt, ...);
void op_grow(struct op_blob *b);
int op_node(const struct op_blob *b, const char *path);
int op_node_by_phandle(const struct op_blob *b, u32 phandle);
void op_path(const struct op_blob *b, int node, char *buf, size_t len);
void op_setprop(struct op_blob *b, const char *path, const char *prop,
		const void *val, int len);
void op_delprop(struct op_blob *b, const char *path, const char *prop);
const void *op_prop_at(const struct op_blob *b, const char *path, int i,
		       const char **name, int *len);
void op_put(struct op_blob *b, const char *path, const char *prop, const void *val, int len);
void op_rename(struct op_blob *b, const char *path, const char *name);
void op_fixup_move(struct op_blob *b, const char *src, const char *dst);
void op_fixup_delete(struct op_blob *b, const char *loc);
void op_rebase(struct op_blob *b, const char *from, const char *to);
void op_make_path(struct op_blob *b, const char *path);

/* merge.c */
void op_merge_local_fragments(struct op_blob *b);
void op_drop_stray_symbols(struct op_blob *b);

#endif
