#!/bin/sh
# Userspace equivalence check of the series against the stock code.
#
#   sh run.sh /path/to/linux-source-X.Y ../X.Y
#
# Copies the kernel's pristine drivers/of/overlay.c to a temporary directory,
# applies the patches there with patch -p1, extracts the stock and the new
# changeset_dup_entry_check() (0001) and the child index (0002), and runs them
# on random changesets and child lists, built with both definitions of
# of_node_cmp()/of_prop_cmp() (generic and sparc).  dupcheck.c compares return
# codes and the exact pr_err() output, in order; then it runs the new code again
# with random allocation failures (it must return -ENOMEM and print nothing, or
# the same result; built with ASan/UBSan, which also report leaks).  children.c
# runs child_index_build() with numbers of lookups below and above
# CHILD_INDEX_MIN_LOOKUPS and compares child_index_find() (index and linear
# fallback) with the stock for_each_child_of_node() walk, including the node and
# the reference counts.  Nothing is written outside the temporary directory.
set -eu
if [ $# -ne 2 ]; then
	echo "usage: sh $0 /path/to/linux-source-X.Y /path/to/patches/X.Y" >&2
	exit 2
fi
src=$1
pdir=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/drivers/of"
cp "$src/drivers/of/overlay.c" "$tmp/tree/drivers/of/"
cp "$src/drivers/of/overlay.c" "$tmp/stock.c"
for p in "$pdir"/0*.patch; do
	(cd "$tmp/tree" && patch -p1 -s <"$p")
done
python3 - "$tmp" <<'PY'
import sys
t = sys.argv[1]
stock = open(t + '/stock.c').read()
new = open(t + '/tree/drivers/of/overlay.c').read()
end = '/**\n * build_changeset() - populate overlay changeset'
a = stock.index('static int find_dup_cset_node_entry(')
open(t + '/stock.inc', 'w').write(stock[a:stock.index(end)].replace(
    'changeset_dup_entry_check', 'stock_dup_entry_check'))
a = new.index('/**\n * struct dup_check_entry')
s = new[a:new.index(end)].replace('changeset_dup_entry_check',
                                  'new_dup_entry_check')
s = s.replace('kvmalloc_array(n, sizeof(*ents), GFP_KERNEL)',
              'kvmalloc_objs(*ents, n)')
s = s.replace('kvmalloc_array(n, sizeof(*order), GFP_KERNEL)',
              'kvmalloc_objs(*order, n)')
open(t + '/new.inc', 'w').write(s)
a = new.index('/*\n * Index the children of a target node')
s = new[a:new.index('/**\n * add_changeset_node() - add @node')]
s = s.replace('kvmalloc_objs(*ci->entries, n)',
              'malloc(sizeof(*ci->entries) * n)')
s = s.replace('kvmalloc_array(n, sizeof(*ci->entries), GFP_KERNEL)',
              'malloc(sizeof(*ci->entries) * n)')
open(t + '/idx.inc', 'w').write(s)
PY
cp "$here/dupcheck.c" "$here/children.c" "$tmp/"
cd "$tmp"
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
for arch in generic sparc; do
	d=; [ $arch = sparc ] && d=-DSPARC
	echo "== of_node_cmp/of_prop_cmp: $arch"
	gcc -O1 -g $san $d -Wall -o dupcheck dupcheck.c
	./dupcheck 200000 1
	./dupcheck 200000 2 big
	gcc -O1 -g $san $d -Wall -o children children.c
	./children
done
