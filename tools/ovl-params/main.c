// SPDX-License-Identifier: GPL-2.0
/*
 * ovl-params: the parameter engine of ovl (tools/ovl).
 *
 *   ovl-params set IN.dtbo OUT.dtbo [NAME=VALUE|NAME]...
 *	sets each parameter in order (NAME alone: the value "true"), then
 *	merges the fragments that target the overlay's own nodes and drops
 *	the symbols of hidden fragments, and writes OUT; nothing is written
 *	if anything is refused
 *   ovl-params list IN.dtbo
 *	each parameter's targets: NAME<TAB>NODE<TAB>DECLARATION[<TAB>LITERAL]
 *
 * Exit status: 0 done, 2 usage, 3 refused (unknown parameter, bad value,
 * malformed declaration, not a blob), 4 the system (files, memory).
 * Messages go to stderr as "ovl-params: parameter NAME: ...".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "ovl-params.h"

void op_fail(const struct op_blob *b, int status, const char *fmt, ...)
{
	va_list ap;

	fputs("ovl-params: ", stderr);
	if (b && b->param)
		fprintf(stderr, "parameter %s: ", b->param);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static void op_usage(void)
{
	fputs("usage: ovl-params set IN.dtbo OUT.dtbo [NAME=VALUE|NAME]...\n"
	      "       ovl-params list IN.dtbo\n", stderr);
	exit(2);
}

/*
 * Every node and property of @fdt must have a name and a value libfdt can
 * read: the header check alone lets a crafted blob hand out NULL names.
 */
static void op_check_tree(const struct op_blob *b, const void *fdt)
{
	int node = 0, depth = 0, off, len;
	const char *name;

	/* past the root's end, fdt_next_node() gives depth -1 */
	while (node >= 0 && depth >= 0) {
		if (!fdt_get_name(fdt, node, &len))
			op_fail(b, OP_REFUSED, "%s: a node without a readable name", b->file);
		fdt_for_each_property_offset(off, fdt, node) {
			name = NULL;
			if (!fdt_getprop_by_offset(fdt, off, &name, &len) || !name)
				op_fail(b, OP_REFUSED, "%s: a property libfdt cannot read",
					b->file);
		}
		if (off != -FDT_ERR_NOTFOUND)
			op_fail(b, OP_REFUSED, "%s: broken properties", b->file);
		node = fdt_next_node(fdt, node, &depth);
	}
	if (node < 0 && node != -FDT_ERR_NOTFOUND)
		op_fail(b, OP_REFUSED, "%s: a broken structure block", b->file);
}

/* reads @b->file into a buffer with room for edits */
static void op_read(struct op_blob *b)
{
	FILE *f = fopen(b->file, "rb");
	size_t n = 0, cap = 65536;
	char *buf = malloc(cap);
	size_t got;

	if (!f)
		op_fail(b, OP_REFUSED, "%s: %s", b->file, strerror(errno));
	if (!buf)
		op_fail(b, OP_SYSTEM, "out of memory");
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			if (cap >= OP_BLOB_MAX)
				op_fail(b, OP_REFUSED, "%s: larger than %d bytes", b->file,
					OP_BLOB_MAX);
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				op_fail(b, OP_SYSTEM, "out of memory");
		}
	}
	if (ferror(f))
		op_fail(b, OP_SYSTEM, "%s: %s", b->file, strerror(errno));
	fclose(f);
	if (n < sizeof(struct fdt_header) || fdt_check_header(buf) ||
	    fdt_totalsize(buf) > n)
		op_fail(b, OP_REFUSED, "%s is not a device-tree blob", b->file);
	b->cap = 2 * n + 65536;
	op_check_tree(b, buf);
	b->fdt = malloc(b->cap);
	if (!b->fdt || fdt_open_into(buf, b->fdt, (int)b->cap))
		op_fail(b, OP_REFUSED, "%s is not a device-tree blob", b->file);
	free(buf);
}

static void op_write(struct op_blob *b, const char *out)
{
	FILE *f;

	if (fdt_pack(b->fdt))
		op_fail(b, OP_SYSTEM, "cannot pack the result");
	f = fopen(out, "wb");
	if (!f || fwrite(b->fdt, 1, fdt_totalsize(b->fdt), f) != fdt_totalsize(b->fdt) ||
	    fclose(f))
		op_fail(b, OP_SYSTEM, "%s: %s", out, strerror(errno));
}

int main(int argc, char **argv)
{
	struct op_blob b = { 0 };
	char name[256];
	const char *eq;
	size_t n;
	int i;

	if (argc == 3 && !strcmp(argv[1], "list")) {
		b.file = argv[2];
		op_read(&b);
		op_list_params(&b);
		free(b.fdt);
		return 0;
	}
	if (argc < 4 || strcmp(argv[1], "set"))
		op_usage();
	b.file = argv[2];
	op_read(&b);
	for (i = 4; i < argc; i++) {
		/* split at the first '=', as dtoverlay does */
		eq = strchr(argv[i], '=');
		n = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		if (!n || n >= sizeof(name))
			op_fail(NULL, OP_REFUSED, "'%s' is not NAME=VALUE", argv[i]);
		memcpy(name, argv[i], n);
		name[n] = 0;
		op_set_param(&b, name, eq ? eq + 1 : "true");
	}
	op_merge_local_fragments(&b);
	op_drop_stray_symbols(&b);
	op_write(&b, argv[3]);
	free(b.fdt);
	return 0;
}
