// SPDX-License-Identifier: GPL-2.0
/*
 * One parameter: its __overrides__ declaration walked target by target and
 * each target set, as dtmerge/dtoverlay.c of raspberrypi/utils does
 * (dtoverlay_foreach_override_target(), dtoverlay_extract_override(),
 * dtoverlay_lookup_key(), dtoverlay_override_one_target()). The rules are
 * those of docs/ovl.md; where the reference reads past its buffers, this
 * refuses instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "ovl-params.h"

static u32 op_be32(const char *p)
{
	const u8 *u = (const u8 *)p;

	return (u32)u[0] << 24 | u[1] << 16 | u[2] << 8 | u[3];
}

static void op_set_value(const struct op_blob *b, struct op_target *t, const char *v, size_t n)
{
	if (n > OP_VALUE_MAX)
		op_fail(b, OP_REFUSED, "\"%s\": a value of more than %d bytes", t->decl,
			OP_VALUE_MAX);
	memmove(t->value, v, n);
	t->value[n] = 0;
}

/*
 * The lookup table at @p ("key=value,key,=default,...}"), over the strings
 * and cells of the declaration up to @end: @t->value, the key, becomes the
 * value it selects. Returns where the declaration goes on.
 */
static const char *op_lookup(const struct op_blob *b, struct op_target *t, const char *data,
			     const char *p, const char *end)
{
	int found = 0, selected;
	char buf[OP_VALUE_MAX + 1];
	size_t klen, vlen;
	const char *v, *q;

	while (p < end && *p != '}') {
		if (!*p)
			op_fail(b, OP_REFUSED, "\"%s\": malformed lookup", t->decl);
		klen = strcspn(p, "=,}");
		if (klen) {
			selected = found != 1 && strlen(t->value) == klen &&
				   !strncmp(p, t->value, klen);
			if (selected)
				found = 1;
		} else {
			selected = !found;
			if (selected)
				found = 2;
		}
		p += klen;
		if (*p == '=') {
			p++;
			if (!*p && p + 1 < end) {
				if (end - (p + 1) < 4)
					op_fail(b, OP_REFUSED, "\"%s\": truncated cell", t->decl);
				op_fmt(b, buf, sizeof(buf), "%d", (s32)op_be32(p + 1));
				vlen = strlen(buf);
				v = buf;
				if (selected)
					t->cell = p + 1 - data;
				p += 5;
			} else if (*p == '\'') {
				q = strchr(p + 1, '\'');
				if (!q)
					op_fail(b, OP_REFUSED, "\"%s\": unterminated quoted string",
						t->decl);
				v = p + 1;
				vlen = (size_t)(q - v);
				p = q + 1;
			} else {
				v = p;
				vlen = strcspn(p, ",}");
				p += vlen;
			}
			/* dtoverlay_extract_immediate() checks every entry's */
			if (vlen > OP_VALUE_MAX)
				op_fail(b, OP_REFUSED,
					"\"%s\": a lookup value of more than %d bytes",
					t->decl, OP_VALUE_MAX);
			if (selected) {
				memmove(buf, v, vlen);
				op_set_value(b, t, buf, vlen);
			}
			if (v == buf)
				continue;	/* no comma skipped after a cell */
		}
		if (p < end && *p == ',')
			p++;
	}
	if (!found && !b->listing)
		op_fail(b, OP_REFUSED, "no match for '%s' in \"%s\"", t->value, t->decl);
	if (p >= end)
		return end;
	if (p + 1 >= end || p[1])
		op_fail(b, OP_REFUSED, "\"%s\": text after the lookup's '}', or no NUL", t->decl);
	return p + 2;
}

/*
 * The next target of the declaration @data (@len bytes) at @pos into @t,
 * the user's @value its starting value. Returns the position after it.
 */
static size_t op_extract(const struct op_blob *b, const char *data, size_t len, size_t pos,
			 const char *value, struct op_target *t)
{
	const char *s, *end = data + len, *lit;
	size_t slen, name_len, target_len;
	const char *after;
	char sep;

	memset(t, 0, sizeof(*t));
	t->cell = -1;
	if (pos >= len) {
		t->type = OP_END;
		return len;
	}
	if (len - pos < 4 + 1 + 1)
		op_fail(b, OP_REFUSED, "its __overrides__ entry is truncated or mangled");
	t->phandle = op_be32(data + pos);
	s = data + pos + 4;
	slen = strnlen(s, (size_t)(end - s));
	if (s + slen == end)
		op_fail(b, OP_REFUSED, "its __overrides__ entry has a string without its NUL");
	t->decl = s;
	after = s + slen + 1;
	op_set_value(b, t, value, strlen(value));
	if (t->phandle >= 0x80000000u && !b->listing)
		op_fail(b, OP_REFUSED,
			"\"%s\" targets a label of the base tree (phandle 0x%x): a parameter can set only the overlay's own nodes (dtoverlay refuses it too)",
			s, t->phandle);
	if (!t->phandle) {
		t->type = OP_SWITCH;
		return (size_t)(after - data);
	}
	target_len = strcspn(s, "={");
	name_len = strcspn(s, ".;:#?![{=");
	if (name_len >= sizeof(t->prop))
		op_fail(b, OP_REFUSED, "\"%s\": a property name too long", s);
	memcpy(t->prop, s, name_len);
	t->type = OP_STRING;
	sep = name_len < target_len ? s[name_len] : 0;
	switch (sep) {
	case '.': case ';': case ':': case '#':
		t->type = OP_INTEGER;
		t->size = 1 << (strchr(".;:#", sep) - ".;:#");
		t->off = atoi(s + name_len + 1);
		if (t->off < 0 || t->off > OP_BLOB_MAX)
			op_fail(b, OP_REFUSED, "\"%s\": an offset below 0 or above %d", s,
				OP_BLOB_MAX);
		break;
	case '?':
		t->type = OP_BOOLEAN;
		break;
	case '!':
		t->type = OP_BOOLEAN_INV;
		break;
	case '[':
		t->type = OP_BYTES;
		break;
	}
	if (target_len == slen)
		return (size_t)(after - data);
	lit = s + target_len + 1;
	if (s[target_len] == '{') {
		after = op_lookup(b, t, data, lit, end);
		return (size_t)(after - data);
	}
	/* a literal: the user's value does not count */
	if (*lit || t->type == OP_BYTES) {
		op_set_value(b, t, lit, strlen(lit));
	} else if (t->type == OP_STRING) {
		/* "prop=",&label: dtc wrote the label's path as the next string */
		if (after < end) {
			slen = strnlen(after, (size_t)(end - after));
			if (after + slen == end)
				op_fail(b, OP_REFUSED, "\"%s\": its string has no NUL", s);
			op_set_value(b, t, after, slen);
			after += slen + 1;
		} else {
			op_set_value(b, t, "", 0);
		}
	} else {
		char num[16];

		if (end - after < 4)
			op_fail(b, OP_REFUSED, "\"%s\": the cell after it is missing", s);
		op_fmt(b, num, sizeof(num), "%u", op_be32(after));
		op_set_value(b, t, num, strlen(num));
		t->cell = after - data;
		after += 4;
	}
	return (size_t)(after - data);
}

static void op_set_string(struct op_blob *b, const struct op_target *t, const char *path)
{
	char *val = malloc(strlen(t->value) + 1);
	size_t len;

	if (!val)
		op_fail(b, OP_SYSTEM, "out of memory");
	if (op_unescape(t->value, val, &len))
		op_fail(b, OP_REFUSED, "invalid escape in '%s'", t->value);
	if (!strcmp(t->prop, "name")) {
		op_rename(b, path, val);
		free(val);
		return;
	}
	op_put(b, path, t->prop, val, (int)len + 1);
	free(val);
}

static void op_set_integer(struct op_blob *b, const struct op_target *t, const char *path,
			   u64 v)
{
	int len, i, is_reg = !strcmp(t->prop, "reg");
	int want = t->off + t->size;
	const char *old;
	char loc[1100];
	u8 *buf;

	old = fdt_getprop(b->fdt, op_node(b, path), t->prop, &len);
	if (!old)
		len = 0;
	/* reg is never made or lengthened; anything else grows zero-filled */
	if (len >= want || !is_reg) {
		buf = calloc(1, len > want ? len : want);
		if (!buf)
			op_fail(b, OP_SYSTEM, "out of memory");
		if (len)
			memcpy(buf, old, len);
		for (i = 0; i < t->size; i++)
			buf[t->off + i] = (u8)(v >> (8 * (t->size - 1 - i)));
		op_setprop(b, path, t->prop, buf, len > want ? len : want);
		free(buf);
	}
	if (t->cell >= 0 && t->size == 4) {
		char src[300];

		op_fmt(b, src, sizeof(src), "/__overrides__:%s:%ld", b->param, t->cell);
		op_fmt(b, loc, sizeof(loc), "%s:%s:%d", path, t->prop, t->off);
		op_fixup_move(b, src, loc);
	}
	if (is_reg && !t->off) {
		/* the unit address follows reg: NAME@<value in lowercase hex> */
		const char *name = strrchr(path, '/') + 1;
		const char *at = strchr(name, '@');
		char new[300];

		if (at) {
			op_fmt(b, new, sizeof(new), "%.*s@%x", (int)(at - name), name, (u32)v);
			op_rename(b, path, new);
		}
	}
}

/* the fragment switch program @t->decl ("+N", "-N", "=N", "!N", ...) */
static void op_switch(struct op_blob *b, const struct op_target *t, u64 v)
{
	const char *p = t->decl;
	char frag[64], from[96], to[96];
	unsigned long n;
	int on;
	char *end;

	while (*p) {
		if (!strchr("+-=!", *p))
			op_fail(b, OP_REFUSED,
				"\"%s\": '%c' is not a fragment switch (+N -N =N !N)", t->decl, *p);
		on = *p == '+' || (*p == '=' && v) || (*p == '!' && !v);
		n = (u32)strtoul(p + 1, &end, 0);	/* dtoverlay's frag_num */
		p = end;
		op_fmt(b, frag, sizeof(frag), "/fragment@%lu", n);
		if (op_node(b, frag) < 0)
			op_fmt(b, frag, sizeof(frag), "/fragment-%lu", n);
		if (op_node(b, frag) < 0)
			op_fail(b, OP_REFUSED, "\"%s\": no fragment %lu", t->decl, n);
		op_fmt(b, from, sizeof(from), "%s/%s", frag, on ? "__dormant__" : "__overlay__");
		op_fmt(b, to, sizeof(to), "%s", on ? "__overlay__" : "__dormant__");
		if (op_node(b, from) >= 0)
			op_rename(b, from, to);
	}
}

/* one target: what dtoverlay_override_one_target() does */
static void op_apply(struct op_blob *b, struct op_target *t)
{
	char path[1024], loc[1100];
	const u8 *dummy = NULL;
	u8 bytes[32];
	const char *bad;
	u64 v = 0;
	int node, neg, len, err;
	size_t n;

	if (t->type != OP_SWITCH) {
		node = op_node_by_phandle(b, t->phandle);
		if (node < 0)
			op_fail(b, OP_REFUSED, "\"%s\": no node of the overlay has phandle %u",
				t->decl, t->phandle);
		op_path(b, node, path, sizeof(path));
	}
	if (t->type == OP_STRING) {
		if (!strcmp(t->prop, "status")) {
			const char *w = op_status_word(t->value);

			op_set_value(b, t, w, strlen(w));
		}
		op_set_string(b, t, path);
		return;
	}
	if (t->type == OP_BYTES) {
		switch (op_bytestring(t->value, bytes, &n, &bad)) {
		case 0:
			op_setprop(b, path, t->prop, n ? bytes : dummy, (int)n);
			return;
		case -E2BIG:
			op_fail(b, OP_REFUSED, "bytestring '%s' too long (32 bytes at most)",
				t->value);
		default:
			op_fail(b, OP_REFUSED, "invalid bytestring at '%s'", bad);
		}
	}
	err = op_parse_int(t->value, &v, &neg);
	if (err == -ERANGE && t->type == OP_INTEGER)
		op_fail(b, OP_REFUSED, "'%s' does not fit \"%s\" (64 bits at most)", t->value,
			t->decl);
	if (err == -ERANGE) {
		v = 1;		/* dtoverlay saturates: true */
		neg = 0;
	} else if (err) {
		if (t->type != OP_SWITCH)
			op_fail(b, OP_REFUSED,
				"invalid value '%s' for \"%s\": a number (decimal, 0x hex, 0 octal) or y/yes/on/true/down, n/no/off/false, up",
				t->value, t->decl);
		v = t->value[0] != 0;	/* a switch takes any word as true */
	} else if (neg) {
		v = -v;
	}
	switch (t->type) {
	case OP_SWITCH:
		op_switch(b, t, v);
		return;
	case OP_INTEGER:
		if (!op_fits(neg ? -v : v, neg, t->size))
			op_fail(b, OP_REFUSED, "'%s' does not fit \"%s\" (%d bits)", t->value,
				t->decl, t->size * 8);
		op_set_integer(b, t, path, v);
		return;
	default:
		/* a boolean: the fixup of the old value goes with it */
		if (fdt_getprop(b->fdt, op_node(b, path), t->prop, &len) && len > 0) {
			op_fmt(b, loc, sizeof(loc), "%s:%s:0", path, t->prop);
			op_fixup_delete(b, loc);
		}
		if (!!v != !!(t->type == OP_BOOLEAN_INV))
			op_setprop(b, path, t->prop, dummy, 0);
		else
			op_delprop(b, path, t->prop);
	}
}

/**
 * op_copy_prop() - a copy of @len bytes at @val with a NUL after them
 * @b: the blob, for the message
 * @val: a property's value
 * @len: its length
 *
 * Scans of a declaration then stop at its end. The caller frees it.
 */
char *op_copy_prop(const struct op_blob *b, const void *val, int len)
{
	char *copy = malloc(len + 1);

	if (!copy)
		op_fail(b, OP_SYSTEM, "out of memory");
	memcpy(copy, val, len);
	copy[len] = 0;
	return copy;
}

/* a copy of the declaration of parameter @name, its length in @len, or fails */
static char *op_declaration(struct op_blob *b, const char *name, int *len)
{
	int node = op_node(b, "/__overrides__"), off;
	const char *val, *pname;
	char *names;
	size_t n = 1;

	val = node < 0 ? NULL : fdt_getprop(b->fdt, node, name, len);
	if (val)
		return op_copy_prop(b, val, *len);
	if (node < 0)
		op_fail(b, OP_REFUSED, "%s has no parameters (no __overrides__ node)", b->file);
	/* op_read() checked that every property has a name */
	fdt_for_each_property_offset(off, b->fdt, node) {
		fdt_getprop_by_offset(b->fdt, off, &pname, NULL);
		n += strlen(pname) + 1;
	}
	names = calloc(1, n);
	if (!names)
		op_fail(b, OP_SYSTEM, "out of memory");
	fdt_for_each_property_offset(off, b->fdt, node) {
		fdt_getprop_by_offset(b->fdt, off, &pname, NULL);
		strcat(strcat(names, *names ? " " : ""), pname);
	}
	b->param = NULL;
	op_fail(b, OP_REFUSED, "unknown parameter '%s' (%s has: %s)", name, b->file, names);
}

/**
 * op_set_param() - sets parameter @name to @value in the blob
 * @b: the blob
 * @name: a property of /__overrides__
 * @value: the user's value ("true" for a parameter given without one)
 *
 * Each target in declaration order; fails the program (nothing written) at
 * the first that cannot be set.
 */
void op_set_param(struct op_blob *b, const char *name, const char *value)
{
	struct op_target t;
	size_t pos = 0;
	char *data;
	int len;

	b->param = name;
	data = op_declaration(b, name, &len);
	for (;;) {
		pos = op_extract(b, data, (size_t)len, pos, value, &t);
		if (t.type == OP_END)
			break;
		op_apply(b, &t);
	}
	free(data);
	b->param = NULL;
}

/**
 * op_list_params() - prints each parameter's targets, a line each
 * @b: the blob
 *
 * "NAME<TAB>NODE<TAB>DECLARATION[<TAB>LITERAL]" (NODE: the target's path,
 * "(fragments)" for a fragment switch; LITERAL: the value a "prop=" or
 * "prop:N=" declaration takes from the string or cell after it).
 */
void op_list_params(struct op_blob *b)
{
	int node = op_node(b, "/__overrides__"), off, len;
	const char *name, *val;
	struct op_target t;
	char path[1024];
	char *data;
	size_t pos;

	if (node < 0)
		return;
	b->listing = 1;
	fdt_for_each_property_offset(off, b->fdt, node) {
		val = fdt_getprop_by_offset(b->fdt, off, &name, &len);
		data = op_copy_prop(b, val, len);
		b->param = name;
		for (pos = 0;;) {
			size_t next = op_extract(b, data, (size_t)len, pos, "", &t);

			if (t.type == OP_END)
				break;
			if (t.type == OP_SWITCH)
				op_fmt(b, path, sizeof(path), "(fragments)");
			else if (t.phandle >= 0x80000000u)
				op_fmt(b, path, sizeof(path), "(a label of the base tree)");
			else if (op_node_by_phandle(b, t.phandle) < 0)
				op_fmt(b, path, sizeof(path), "(no phandle %u)", t.phandle);
			else
				op_path(b, op_node_by_phandle(b, t.phandle), path, sizeof(path));
			printf("%s\t%s\t%s", name, path, t.decl);
			/* a literal whose value came after the declaration's string */
			if (next > pos + 4 + strlen(t.decl) + 1 && !strchr(t.decl, '{'))
				printf("\t%s", t.value);
			printf("\n");
			pos = next;
		}
		free(data);
	}
	b->param = NULL;
}
