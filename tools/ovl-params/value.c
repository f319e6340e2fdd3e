// SPDX-License-Identifier: GPL-2.0
/*
 * Values as dtoverlay reads them (dtmerge/dtoverlay.c of raspberrypi/utils:
 * dtoverlay_override_one_target() for numbers and words,
 * dtoverlay_extract_override() for strings, status and byte strings), with
 * one deliberate difference: a number that does not fit its cell is refused
 * where dtoverlay keeps its low bits.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ovl-params.h"

/* dtoverlay's words for integers and booleans: case-sensitive */
static const struct {
	const char *word;
	u64 v;
} op_words[] = {
	{ "y", 1 }, { "yes", 1 }, { "on", 1 }, { "true", 1 }, { "down", 1 },
	{ "n", 0 }, { "no", 0 }, { "off", 0 }, { "false", 0 },
	{ "up", 2 },
};

/**
 * op_parse_int() - a number as strtoull(s, &end, 0) reads all of it, or a word
 * @s: the value
 * @v: the number (for "-N": N, with *@negative set)
 * @negative: whether the number had a minus sign
 *
 * Base 0 as dtoverlay: 0x hex, a leading 0 octal (010 is 8, 08 is not a
 * number), else decimal; "" is 0. Returns 0, -EINVAL for anything else, or
 * -ERANGE for a number above 64 bits (dtoverlay saturates it).
 */
int op_parse_int(const char *s, u64 *v, int *negative)
{
	const char *p = s;
	char *end;
	size_t i;

	*negative = 0;
	for (i = 0; i < ARRAY_SIZE(op_words); i++) {
		if (!strcmp(s, op_words[i].word)) {
			*v = op_words[i].v;
			return 0;
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-') {
		*negative = 1;
		p++;
	} else if (*p == '+') {
		p++;
	}
	if (*p == '-' || *p == '+' || isspace((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	*v = strtoull(p, &end, 0);
	/* strtoull() converting nothing points end at s: only "" is 0 */
	if (*end || (end == p && *s))
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	if (*negative && *v == 0)
		*negative = 0;
	return 0;
}

/**
 * op_fits() - whether a parsed number fits a cell of @size bytes
 * @v: the magnitude from op_parse_int()
 * @negative: its sign
 * @size: 1, 2, 4 or 8
 *
 * Unsigned up to 2^(8 size) - 1, negative down to -2^(8 size - 1) (written
 * in two's complement, as dtoverlay writes -1). Returns 1 or 0.
 */
int op_fits(u64 v, int negative, int size)
{
	int bits = size * 8;

	if (negative)
		return v <= (u64)1 << (bits - 1);
	return bits == 64 || v < (u64)1 << bits;
}

static int op_hexdigit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* two hex digits at s, or -1 (dtoverlay's hex_byte()) */
static int op_hexbyte(const char *s)
{
	int hi = op_hexdigit((unsigned char)s[0]);
	int lo = hi < 0 ? -1 : op_hexdigit((unsigned char)s[1]);

	return lo < 0 ? -1 : hi * 16 + lo;
}

/* the byte of the escape \@c, or -1 */
static int op_named_escape(int c)
{
	switch (c) {
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	case 'v': return '\v';
	case '\\': case '\'': case '"': return c;
	default: return -1;
	}
}

/**
 * op_unescape() - a string value with dtoverlay's escapes decoded
 * @s: the value
 * @out: at least strlen(@s) + 1 bytes; gets the bytes and a final NUL
 * @len: the number of bytes before that NUL (\0 may put more NULs in)
 *
 * \0-\377 (up to three octal digits), \a \b \f \n \r \t \v, \xHH (exactly
 * two hex digits), \\ \' \". Returns 0, or -EINVAL for any other escape.
 */
int op_unescape(const char *s, char *out, size_t *len)
{
	size_t n = 0;
	int c, i;

	while (*s) {
		if (*s != '\\') {
			out[n++] = *s++;
			continue;
		}
		s++;
		if (*s >= '0' && *s <= '7') {
			for (c = 0, i = 0; i < 3 && *s >= '0' && *s <= '7'; i++)
				c = c * 8 + *s++ - '0';
			if (c > 255)
				return -EINVAL;
			out[n++] = (char)c;
		} else if (*s == 'x') {
			c = op_hexbyte(s + 1);
			if (c < 0)
				return -EINVAL;
			out[n++] = (char)c;
			s += 3;
		} else {
			c = op_named_escape(*s++);
			if (c < 0)
				return -EINVAL;
			out[n++] = (char)c;
		}
	}
	out[n] = 0;
	*len = n;
	return 0;
}

/**
 * op_bytestring() - the bytes of a "prop[" value
 * @s: hex digit pairs; spaces, tabs and colons between them are skipped
 * @out: at least 32 bytes
 * @len: the number of bytes
 * @bad: where the value stops being hex pairs, on -EINVAL
 *
 * Returns 0, -EINVAL, or -E2BIG for more than 32 bytes (dtoverlay's limit).
 */
int op_bytestring(const char *s, u8 *out, size_t *len, const char **bad)
{
	size_t n = 0;
	int c;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == ':')
			s++;
		if (!*s)
			break;
		c = op_hexbyte(s);
		if (c < 0) {
			*bad = s;
			return -EINVAL;
		}
		if (n == 32)
			return -E2BIG;
		out[n++] = (u8)c;
		s += 2;
	}
	*len = n;
	return 0;
}

/**
 * op_status_word() - what a "status" string target writes for @s
 * @s: the value, after any literal or lookup
 *
 * y/yes/on/true/enable/1 are "okay", n/no/off/false/0 "disabled", anything
 * else itself (dtoverlay_extract_override()).
 */
const char *op_status_word(const char *s)
{
	static const char *const on[] = { "y", "yes", "on", "true", "enable", "1" };
	static const char *const off[] = { "n", "no", "off", "false", "0" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(on); i++)
		if (!strcmp(s, on[i]))
			return "okay";
	for (i = 0; i < ARRAY_SIZE(off); i++)
		if (!strcmp(s, off[i]))
			return "disabled";
	return s;
}
