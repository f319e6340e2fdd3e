/*
 * userspace equivalence harness: child_index_build() + child_index_find() vs
 * the stock for_each_child_of_node() walk, below and above the threshold
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#ifdef SPARC
#define of_node_cmp(s1, s2) strcmp((s1), (s2))
#else
#define of_node_cmp(s1, s2) strcasecmp((s1), (s2))
#endif
struct device_node { const char *full_name; struct device_node *child, *sibling; int ref; };
static struct device_node *of_node_get(struct device_node *n) { if (n) n->ref++; return n; }
static void of_node_put(struct device_node *n) { if (n) n->ref--; }
static struct device_node *of_get_next_child(const struct device_node *node, struct device_node *prev)
{ struct device_node *next = prev ? prev->sibling : node->child; of_node_get(next); of_node_put(prev); return next; }
#define for_each_child_of_node(parent, child) \
	for (child = of_get_next_child(parent, NULL); child != NULL; child = of_get_next_child(parent, child))
/* like __free(device_node): of_node_put() when the loop variable goes out of scope */
static void __attribute__((unused)) put_np(struct device_node **p) { of_node_put(*p); }
#define for_each_child_of_node_scoped(parent, child) \
	for (struct device_node *child __attribute__((cleanup(put_np))) = of_get_next_child(parent, NULL); \
	     child != NULL; child = of_get_next_child(parent, child))
static int of_get_child_count(const struct device_node *np)
{ struct device_node *child; int num = 0; for_each_child_of_node(np, child) num++; return num; }
static int of_mutex; /* 1 while "held" */
#define lockdep_assert_held(l) do { if (!*(l)) { printf("of_mutex not held\n"); exit(1); } } while (0)
static long warned;
#define WARN_ON_ONCE(c) ({ int __c = !!(c); if (__c) warned++; __c; })
static const char *kbasename(const char *p) { const char *t = strrchr(p, '/'); return t ? t + 1 : p; }
typedef int (*cmp_func_t)(const void *, const void *);
static void sort(void *base, size_t num, size_t size, cmp_func_t cmp, void *swap)
{
	char *b = base, t[64];
	(void)swap;
	for (size_t i = num; i > 1; i--) { size_t j = rand() % i;
		memcpy(t, b + (i - 1) * size, size); memcpy(b + (i - 1) * size, b + j * size, size); memcpy(b + j * size, t, size); }
	qsort(base, num, size, cmp);
}
#include "idx.inc"
static const char *names[] = { "a", "A", "b@1", "B@1", "c", "/x/a", "x/b@1", "/X/a", "X/b@1", "", "a/", "/", "d", "D" };
#define NN (sizeof(names) / sizeof(*names))
int main(void)
{
	long it, hits = 0, indexed = 0, linear = 0;
	srand(5);
	of_mutex = 1;
	for (it = 0; it < 500000; it++) {
		struct device_node parent = { "p", NULL, NULL, 0 }, kids[30];
		int nk = rand() % 30, k;
		/* number of overlay child nodes: around the threshold, sometimes far above */
		int nl = rand() % 4 ? rand() % (2 * CHILD_INDEX_MIN_LOOKUPS) : rand() % 64;
		struct child_index ci;
		for (k = nk - 1; k >= 0; k--) {
			kids[k].full_name = names[rand() % NN]; kids[k].ref = 1; kids[k].child = NULL;
			kids[k].sibling = parent.child; parent.child = &kids[k];
		}
		if (child_index_build(&ci, &parent, nl)) return 2;
		for (k = 0; k < nk; k++) if (kids[k].ref != 1) { printf("REF after build it %ld\n", it); return 1; }
		if (!!ci.entries != (nl >= CHILD_INDEX_MIN_LOOKUPS && nk > 0)) { printf("THRESHOLD it %ld nl %d nk %d\n", it, nl, nk); return 1; }
		if (ci.entries) {
			indexed++;
			if ((int)ci.count != nk) { printf("COUNT it %ld\n", it); return 1; }
		} else {
			linear++;
		}
		for (k = 0; k < (int)NN; k++) {
			const char *q = kbasename(names[k]);
			struct device_node *t1, *t2;
			int j, refs_stock[30];
			/* the stock walk from add_changeset_node() */
			for_each_child_of_node(&parent, t1)
				if (!of_node_cmp(q, kbasename(t1->full_name)))
					break;
			for (j = 0; j < nk; j++) refs_stock[j] = kids[j].ref;
			of_node_put(t1);
			t2 = child_index_find(&ci, &parent, q);
			if (t1 != t2) { printf("MISMATCH it %ld q '%s'\n", it, q); return 1; }
			/* same references held as after the stock walk */
			for (j = 0; j < nk; j++) if (kids[j].ref != refs_stock[j]) { printf("REF find it %ld\n", it); return 1; }
			if (t2) hits++;
			of_node_put(t2);
		}
		for (k = 0; k < nk; k++) if (kids[k].ref != 1) { printf("REF it %ld\n", it); return 1; }
		free(ci.entries);
	}
	if (warned) { printf("WARN_ON_ONCE fired %ld times\n", warned); return 1; }
	if (!indexed || !linear) { printf("a path was not exercised\n"); return 1; }
	printf("ok, %ld hits, %ld indexed, %ld linear walk\n", hits, indexed, linear);
	return 0;
}
