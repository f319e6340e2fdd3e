#!/bin/sh
# Prints the calls between the module's files, one "caller callee" line
# per pair of files, and fails if they form a cycle.
#
#   scripts/callgraph.sh [DIR]    DIR defaults to module/
#
# A file calls another when its code, comments stripped by the
# preprocessor (gcc -fpreprocessed), names a function that the other file
# defines without "static" at the start of a line (the kernel's style).
# tsort(1) orders the files and reports any loop. A call made from a
# header's static inline function (internal.h's ovpop_time_end() calls
# stats.c) is not seen: keep those to leaf files.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$(dirname "$here")/module}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in "$dir"/*.c; do
	b=$(basename "$f" .c)
	gcc -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null |
		grep -v '^#define' >"$tmp/$b.txt"
	# "type name(" at column 0: the function definitions the file exports
	sed -n 's/^[a-z_][a-z0-9_ *]*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p' "$f" |
		sort -u >"$tmp/$b.defs"
	grep '^static ' "$f" |
		sed -n 's/^static [a-z0-9_ *]*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p' |
		sort -u >"$tmp/$b.static"
	comm -23 "$tmp/$b.defs" "$tmp/$b.static" >"$tmp/$b.exports"
done

: >"$tmp/edges"
for f in "$tmp"/*.txt; do
	caller=$(basename "$f" .txt)
	for e in "$tmp"/*.exports; do
		callee=$(basename "$e" .exports)
		[ "$caller" = "$callee" ] && continue
		[ -s "$e" ] || continue
		if grep -qwFf "$e" "$f"; then
			printf '%s %s\n' "$caller" "$callee" >>"$tmp/edges"
		fi
	done
	printf '%s %s\n' "$caller" "$caller" >>"$tmp/edges"
done
grep -v '^\([a-z_]*\) \1$' "$tmp/edges" || true
if tsort "$tmp/edges" 2>"$tmp/err" >/dev/null && ! [ -s "$tmp/err" ]; then
	echo "callgraph: no cycle between the files of $dir"
	exit 0
fi
cat "$tmp/err" >&2
echo "callgraph: the files of $dir call each other in a cycle" >&2
exit 1
