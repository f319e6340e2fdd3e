#!/bin/sh
# Prints the calls between the module's files, one "caller callee" line
# per pair of files, and fails if they form a cycle.
#
#   scripts/callgraph.sh [DIR]    DIR defaults to module/
#
# A file calls another when its code, with comments (gcc -fpreprocessed)
# and string literals stripped, names a function that the other file
# defines without "static": a definition starts at column 0 (the kernel's
# style), its name before the first "(" of the line, which does not end in
# ";" (a declaration); "static" and __printf(...) may come first, or the
# return type on the line before. A call made from a header's static inline
# function (internal.h's ovpop_time_end() calls stats.c) is not seen: keep
# those to leaf files. The cycle check is a depth-first search in awk.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$(dirname "$here")/module}
command -v gcc >/dev/null || { echo "callgraph: needs gcc (its preprocessor strips the comments)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in "$dir"/*.c; do
	b=$(basename "$f" .c)
	gcc -fpreprocessed -dD -E -P -x c "$f" >"$tmp/$b.pp" ||
		{ echo "callgraph: gcc cannot read $f" >&2; exit 2; }
	sed 's/"\([^"\\]\|\\.\)*"/""/g' "$tmp/$b.pp" >"$tmp/$b.txt"
	awk '
	/^[A-Za-z_]/ && /\(/ && !/;[[:space:]]*$/ {
		line = $0
		st = line ~ /^static[[:space:]]/ ||
			(line ~ /^[A-Za-z_][A-Za-z0-9_]*\(/ && prev ~ /^static[[:space:]]/)
		sub(/__printf\([^)]*\)/, "", line)
		pre = substr(line, 1, index(line, "(") - 1)
		if (match(pre, /[A-Za-z_][A-Za-z0-9_]*[[:space:]]*$/)) {
			name = substr(pre, RSTART, RLENGTH)
			sub(/[[:space:]]+$/, "", name)
			if (!st)
				print name
		}
	}
	{ prev = $0 }' "$tmp/$b.pp" | sort -u >"$tmp/$b.exports"
done

: >"$tmp/edges"
for f in "$tmp"/*.txt; do
	caller=$(basename "$f" .txt)
	for e in "$tmp"/*.exports; do
		callee=$(basename "$e" .exports)
		if [ "$caller" = "$callee" ] || [ ! -s "$e" ]; then
			continue
		fi
		if grep -qwFf "$e" "$f"; then
			printf '%s %s\n' "$caller" "$callee" >>"$tmp/edges"
		fi
	done
done
cat "$tmp/edges"
awk '
function visit(u,    n, i, vs, v) {
	state[u] = 1
	path[++depth] = u
	n = split(adj[u], vs, " ")
	for (i = 1; i <= n; i++) {
		v = vs[i]
		if (state[v] == 1) {
			printf "callgraph: cycle:"
			for (j = 1; j <= depth; j++)
				if (path[j] == v || started) {
					started = 1
					printf " %s", path[j]
				}
			printf " %s\n", v
			started = 0
			found = 1
		} else if (!state[v]) {
			visit(v)
		}
	}
	depth--
	state[u] = 2
}
{ adj[$1] = adj[$1] " " $2; node[$1]; node[$2] }
END {
	for (u in node)
		if (!state[u])
			visit(u)
	exit found
}' "$tmp/edges" >&2 || {
	echo "callgraph: the files of $dir call each other in a cycle" >&2
	exit 1
}
echo "callgraph: no cycle between the files of $dir"
