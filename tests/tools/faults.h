/* SPDX-License-Identifier: GPL-2.0 */
/* ovpop-tool's fault injection commands (faults.c, faults-state.c) */
#ifndef OVPOP_TOOL_FAULTS_H
#define OVPOP_TOOL_FAULTS_H

#include <stddef.h>

/* Lines of text, joined sorted into one string by lines_join() */
struct lines {
	char **v;
	size_t n, cap;
};

/*
 * What an overlay changes: the platform and AMBA devices with their sysfs
 * paths, the devices bound to each of their drivers, the names of the live
 * tree's nodes and properties, and a configfs item's devices report
 * without the driver column; each a sorted list of lines
 */
struct state {
	char *devs, *drvs, *dt, *rep;
};

/* A file's bytes: load() (ovpop-tool.c) reads it, or exits */
struct blob {
	unsigned char *d;
	size_t n;
};

struct blob load(const char *path);
int faults_main(int argc, char **argv);
void fi_fatal(const char *what);
void lines_add(struct lines *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void lines_free(struct lines *l);
char *lines_join(struct lines *l);
char *read_text(const char *path);
void state_get(struct state *st, const char *report_path);
void state_free(struct state *st);
void state_diff(char *why, size_t len, const char *what, const char *a,
		const char *b);

#endif
