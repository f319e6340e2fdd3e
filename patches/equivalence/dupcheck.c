/* userspace equivalence harness: stock vs new changeset_dup_entry_check(), plus allocation-failure injection */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>

struct list_head { struct list_head *next, *prev; };
#define container_of(p, t, m) ((t *)((char *)(p) - offsetof(t, m)))
#define list_entry(p, t, m) container_of(p, t, m)
#define list_for_each_entry(pos, head, member) \
	for (pos = list_entry((head)->next, typeof(*pos), member); \
	     &pos->member != (head); \
	     pos = list_entry(pos->member.next, typeof(*pos), member))
#define list_for_each_entry_continue(pos, head, member) \
	for (pos = list_entry(pos->member.next, typeof(*pos), member); \
	     &pos->member != (head); \
	     pos = list_entry(pos->member.next, typeof(*pos), member))
static void list_add_tail(struct list_head *n, struct list_head *h)
{ n->prev = h->prev; n->next = h; h->prev->next = n; h->prev = n; }

#ifdef SPARC
#define of_prop_cmp(s1, s2)		strcasecmp((s1), (s2))
#define of_node_cmp(s1, s2)		strcmp((s1), (s2))
#else
#define of_prop_cmp(s1, s2)		strcmp((s1), (s2))
#define of_node_cmp(s1, s2)		strcasecmp((s1), (s2))
#endif

#define OF_RECONFIG_ATTACH_NODE		0x0001
#define OF_RECONFIG_DETACH_NODE		0x0002
#define OF_RECONFIG_ADD_PROPERTY	0x0003
#define OF_RECONFIG_REMOVE_PROPERTY	0x0004
#define OF_RECONFIG_UPDATE_PROPERTY	0x0005

struct device_node { const char *full_name; struct device_node *parent; };
struct property { const char *name; };
struct of_changeset_entry {
	struct list_head node; unsigned long action;
	struct device_node *np; struct property *prop;
};
struct of_changeset { struct list_head entries; };
struct overlay_changeset { struct of_changeset cset; };

#define GFP_KERNEL 0
#define kfree free
#define kvfree free
static int inject;
#define kvmalloc_objs(P, n) ((inject && rand() % 8 == 0) ? NULL : (typeof(P) *)malloc(sizeof(P) * (n)))

static const char *kbasename(const char *p)
{ const char *t = strrchr(p, '/'); return t ? t + 1 : p; }

/* mirror lib/vsprintf.c fwnode_full_name_string() + of_fwnode_get_name{,_prefix}() */
static void path_of(const struct device_node *np, char *buf)
{
	const struct device_node *chain[64]; int d = 0;
	for (; np; np = np->parent) chain[d++] = np;
	buf[0] = 0;
	while (d--) {
		const struct device_node *n = chain[d];
		const char *prefix = (!n->parent || !n->parent->parent) ? "" : "/";
		const char *name = !n->parent ? "/" : kbasename(n->full_name);
		strcat(buf, prefix); strcat(buf, name);
	}
}

static char *kasprintf(int gfp, const char *fmt, struct device_node *np)
{
	char buf[4096];
	(void)gfp;
	if (strcmp(fmt, "%pOF")) abort();
	if (inject && rand() % 16 == 0) return NULL;
	path_of(np, buf);
	return strdup(buf);
}

static char log_buf[1 << 20]; static size_t log_len;
static void pr_err(const char *fmt, ...)
{
	va_list ap; char tmp[8192]; const char *f; size_t o = 0;
	va_start(ap, fmt);
	for (f = fmt; *f; f++) {
		if (!strncmp(f, "%pOF", 4)) { char b[4096]; path_of(va_arg(ap, struct device_node *), b); o += sprintf(tmp + o, "%s", b); f += 3; }
		else if (!strncmp(f, "%s", 2)) { o += sprintf(tmp + o, "%s", va_arg(ap, char *)); f++; }
		else tmp[o++] = *f;
	}
	tmp[o] = 0; va_end(ap);
	log_len += sprintf(log_buf + log_len, "%s", tmp);
}

typedef int (*cmp_func_t)(const void *, const void *);
/* shuffle first so that nothing depends on the input order or on stability */
static void sort(void *base, size_t num, size_t size, cmp_func_t cmp, void *swap)
{
	char *b = base, t[64];
	(void)swap;
	for (size_t i = num; i > 1; i--) {
		size_t j = rand() % i;
		memcpy(t, b + (i - 1) * size, size); memcpy(b + (i - 1) * size, b + j * size, size); memcpy(b + j * size, t, size);
	}
	qsort(base, num, size, cmp);
}

#include "stock.inc"
#include "new.inc"

static const char *names[] = { "a", "A", "b@1", "B@1", "c", "/x/a", "x/b@1", "/X/a", "X/b@1", "", "a/" };
static const char *props[] = { "reg", "Reg", "name", "compatible", "REG" };
static const unsigned long acts[] = { 1, 2, 3, 4, 5, 6 /* unknown */ };

int main(int argc, char **argv)
{
	long enomem = 0; long iters = argc > 1 ? atol(argv[1]) : 200000, i, dupruns = 0, multi = 0;
	srand(argc > 2 ? atoi(argv[2]) : 1);
	for (i = 0; i < iters; i++) {
		struct device_node nodes[24]; struct property pr[8];
		struct of_changeset_entry ce[40];
		struct overlay_changeset ovcs;
		int nn = 1 + rand() % 24, ne = rand() % (argc > 3 ? 12 : 40), k, r1, r2;
		char l1[1 << 16]; size_t n1;

		nodes[0].full_name = "/"; nodes[0].parent = NULL;
		for (k = 1; k < nn; k++) {
			static char big[24][16];
			if (argc > 3 && rand() % 4) { sprintf(big[k], "n%d", rand() % 12); nodes[k].full_name = big[k]; }
			else nodes[k].full_name = names[rand() % (sizeof(names) / sizeof(*names))];
			nodes[k].parent = &nodes[rand() % k];
		}
		for (k = 0; k < 8; k++) pr[k].name = props[rand() % 5];
		ovcs.cset.entries.next = ovcs.cset.entries.prev = &ovcs.cset.entries;
		for (k = 0; k < ne; k++) {
			ce[k].action = acts[rand() % 6];
			ce[k].np = &nodes[rand() % nn];
			ce[k].prop = &pr[rand() % 8];
			list_add_tail(&ce[k].node, &ovcs.cset.entries);
		}
		log_len = 0; log_buf[0] = 0;
		r1 = stock_dup_entry_check(&ovcs);
		n1 = log_len; memcpy(l1, log_buf, n1 + 1);
		log_len = 0; log_buf[0] = 0;
		r2 = new_dup_entry_check(&ovcs);
		if (r1 != r2 || n1 != log_len || memcmp(l1, log_buf, n1)) {
			printf("MISMATCH iter %ld: %d vs %d\n--- stock\n%s--- new\n%s", i, r1, r2, l1, log_buf);
			return 1;
		}
		inject = 1; log_len = 0;
		{ int r3 = new_dup_entry_check(&ovcs);
		  if (r3 != r2 && r3 != -ENOMEM) { printf("INJECT mismatch %d %d\n", r2, r3); return 1; }
		  if (r3 == -ENOMEM) { enomem++; if (log_len) { printf("message on ENOMEM\n"); return 1; } } }
		inject = 0;
		if (r1) dupruns++;
		if (r1 && strchr(strchr(l1, '\n') + 1, '\n')) multi++;
	}
	printf("enomem %ld; ", enomem); printf("ok: %ld runs, %ld refused, %ld with several messages\n", iters, dupruns, multi);
	return 0;
}
