// SPDX-License-Identifier: GPL-2.0
/*
 * ovpop-tool's fault injection (faults.c): sorted lists of lines, and the
 * snapshot of what an overlay changes, compared after each operation.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "faults.h"

#define DT "/sys/firmware/devicetree/base"

void fi_fatal(const char *what)
{
	fprintf(stderr, "ovpop-tool: %s: %s\n", what, strerror(errno));
	exit(2);
}

void lines_add(struct lines *l, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			fi_fatal("realloc");
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fi_fatal("vasprintf");
	va_end(ap);
	l->v[l->n++] = s;
}

void lines_free(struct lines *l)
{
	while (l->n)
		free(l->v[--l->n]);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines, sorted, one string; @l is emptied */
char *lines_join(struct lines *l)
{
	size_t i, len = 1;
	char *s, *p;

	qsort(l->v, l->n, sizeof(*l->v), cmpstr);
	for (i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + 1;
	p = s = malloc(len);
	if (!s)
		fi_fatal("malloc");
	for (i = 0; i < l->n; i++)
		p += sprintf(p, "%s\n", l->v[i]);
	*p = 0;
	lines_free(l);
	return s;
}

char *read_text(const char *path)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = fopen(path, "r");
	ssize_t r;

	if (!f)
		return strdup("");
	r = getdelim(&s, &n, 0, f);
	fclose(f);
	if (r < 0) {
		free(s);
		return strdup("");
	}
	return s;
}

static void list_devs(struct lines *l, const char *bus)
{
	char path[512], target[512];
	struct dirent *e;
	ssize_t n;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/bus/%s/devices", bus);
	d = opendir(path);
	if (!d)
		fi_fatal(path);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/%s/devices/%s", bus,
			 e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = 0;
		lines_add(l, "%s %s %s", bus, e->d_name, target);
	}
	closedir(d);
}

static void list_drvs(struct lines *l, const char *bus)
{
	char path[512];
	struct dirent *e, *f;
	DIR *d, *dd;

	snprintf(path, sizeof(path), "/sys/bus/%s/drivers", bus);
	d = opendir(path);
	if (!d)
		fi_fatal(path);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/%s/drivers/%s", bus,
			 e->d_name);
		dd = opendir(path);
		if (!dd)
			continue;
		while ((f = readdir(dd)))
			if (f->d_type == DT_LNK && strcmp(f->d_name, "module"))
				lines_add(l, "%s %s %s", bus, e->d_name,
					  f->d_name);
		closedir(dd);
	}
	closedir(d);
}

static void list_dt(struct lines *l, const char *dir)
{
	char path[1024];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		lines_add(l, "%s", path + sizeof(DT) - 1);
		if (e->d_type == DT_DIR)
			list_dt(l, path);
	}
	closedir(d);
}

/* The devices report @path without its driver column: "bus device node" */
static char *report(const char *path)
{
	struct lines l = { NULL, 0, 0 };
	char *s, *line, *save = NULL;
	char bus[128], dev[128], node[512];

	s = read_text(path);
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%127s %127s %511s", bus, dev, node) == 3)
			lines_add(&l, "%s %s %s", bus, dev, node);
	free(s);
	return lines_join(&l);
}

void state_get(struct state *st, const char *report_path)
{
	struct lines l = { NULL, 0, 0 };

	list_devs(&l, "platform");
	list_devs(&l, "amba");
	st->devs = lines_join(&l);
	list_drvs(&l, "platform");
	list_drvs(&l, "amba");
	st->drvs = lines_join(&l);
	list_dt(&l, DT);
	st->dt = lines_join(&l);
	st->rep = report(report_path);
}

void state_free(struct state *st)
{
	free(st->devs);
	free(st->drvs);
	free(st->dt);
	free(st->rep);
}

/* The first line only @a has and the first only @b has (both sorted) */
void state_diff(char *why, size_t len, const char *what,
		       const char *a, const char *b)
{
	const char *x = NULL, *y = NULL;
	size_t la, lb;
	int c;

	while ((*a || *b) && (!x || !y)) {
		la = strcspn(a, "\n");
		lb = strcspn(b, "\n");
		if (!*a)
			c = 1;
		else if (!*b)
			c = -1;
		else
			c = strncmp(a, b, la < lb ? la + 1 : lb + 1);
		if (c < 0 && !x)
			x = a;
		if (c > 0 && !y)
			y = b;
		if (c <= 0 && *a)
			a += la + !!a[la];
		if (c >= 0 && *b)
			b += lb + !!b[lb];
	}
	snprintf(why, len, "%s differ: -'%.*s' +'%.*s'", what,
		 x ? (int)strcspn(x, "\n") : 0, x ? x : "",
		 y ? (int)strcspn(y, "\n") : 0, y ? y : "");
}

