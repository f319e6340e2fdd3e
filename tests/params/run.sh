#!/bin/sh
# The parameter engine's corpus (tools/ovl-params): for each NAME.cases here,
# NAME.dtso is compiled with dtc -@ and every case sets its parameters in
# it; the result must differ from the input exactly as the case says.
#
#   tests/params/run.sh [OVL_PARAMS]    default: tools/ovl-params/ovl-params
#
# A case, in NAME.cases (blank lines and lines starting with "#" between
# cases are comments; each case starts with the rule it follows):
#   # <rule>: <what dtoverlay does>
#   arg P=V                  one argument of "ovl-params set" (the rest of
#                            the line, spaces included); several lines for
#                            several parameters, in order
#   - PATH<TAB>PROP<TAB>VALUE  a line of the input the result must lack
#   + PATH<TAB>PROP<TAB>VALUE  a line the result must have (VALUE as dtc
#                            -O dts writes it; a node is PATH alone)
#   ! ERE                    instead: refused (exit 3) with a message
#                            matching ERE, and no output file
#   .                        the end of the case
# and, before the first case, lines "always - ..." / "always + ..." that
# every case that is not refused also expects (what the engine does to the
# fixture whatever the parameters).
# Lines of the result's tree neither listed nor in the input fail the case,
# and so do listed ones that are not so. Prints "ok N NAME:LINE" or
# "not ok ..." for each case and "N passed, N failed" last; exits 1 on any
# failure. POSIX sh; busybox too.
set -u

here=$(cd "$(dirname "$0")" && pwd)
tool=${1:-$here/../../tools/ovl-params/ovl-params}
[ -x "$tool" ] || { echo "params: $tool is not built (make -C tools/ovl-params)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/params.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
tab=$(printf '\t')

# flat DTB: the tree as sorted lines "PATH" and "PATH<TAB>PROP<TAB>VALUE"
flat() {
	dtc -q -I dtb -O dts "$1" | awk '
	function path(  p, i) {
		p = ""
		for (i = 1; i <= d; i++) p = p "/" n[i]
		return p == "" ? "/" : p
	}
	/^\/dts-v1\/;$/ || /^[ \t]*$/ { next }
	{ sub(/^[ \t]+/, "") }
	/^};$/ { d--; next }
	/ = / {
		k = $0; sub(/ = .*/, "", k)
		v = $0; sub(/^[^=]* = /, "", v); sub(/;$/, "", v)
		print path() "\t" k "\t" v; next
	}
	/ \{$/ {
		s = $0; sub(/ \{$/, "", s); sub(/^[^ ]*: /, "", s)
		if (s == "/") { d = 0 } else { n[++d] = s }
		print path(); next
	}
	/;$/ { k = $0; sub(/;$/, "", k); print path() "\t" k "\t"; next }' | LC_ALL=C sort
}

passed=0
failed=0
n=0

# check CASE: runs the case collected in $tmp/args, $tmp/want, $tmp/err
check() {
	case_name=$1
	n=$((n + 1))
	rm -f "$tmp/out.dtbo"
	set --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done <"$tmp/args"
	rc=0
	"$tool" set "$in" "$tmp/out.dtbo" "$@" 2>"$tmp/stderr" || rc=$?
	why=
	if [ -s "$tmp/err" ]; then
		if [ "$rc" -ne 3 ]; then
			why="exit $rc, want 3 (refused)"
		elif ! grep -Eq -- "$(cat "$tmp/err")" "$tmp/stderr"; then
			why="message '$(cat "$tmp/stderr")' does not match '$(cat "$tmp/err")'"
		elif [ -e "$tmp/out.dtbo" ]; then
			why="refused, but wrote its output"
		fi
	elif [ "$rc" -ne 0 ]; then
		why="exit $rc: $(cat "$tmp/stderr")"
	elif ! dtc -q -I dtb -O dtb -o /dev/null "$tmp/out.dtbo" 2>"$tmp/dtc"; then
		why="dtc rejects the result: $(cat "$tmp/dtc")"
	else
		flat "$tmp/out.dtbo" >"$tmp/out.flat"
		LC_ALL=C comm -23 "$tmp/in.flat" "$tmp/out.flat" | sed 's/^/- /' >"$tmp/got"
		LC_ALL=C comm -13 "$tmp/in.flat" "$tmp/out.flat" | sed 's/^/+ /' >>"$tmp/got"
		LC_ALL=C sort "$tmp/got" -o "$tmp/got"
		cat "$tmp/always" >>"$tmp/want"
		LC_ALL=C sort -u "$tmp/want" -o "$tmp/want"
		if ! cmp -s "$tmp/got" "$tmp/want"; then
			why="the result differs from the input by:
$(sed 's/^/    /' "$tmp/got")
  want:
$(sed 's/^/    /' "$tmp/want")"
		fi
	fi
	if [ -z "$why" ]; then
		echo "ok $n $case_name"
		passed=$((passed + 1))
	else
		echo "not ok $n $case_name: $why"
		failed=$((failed + 1))
	fi
}

for cases in "$here"/*.cases; do
	name=${cases##*/}
	name=${name%.cases}
	in=$tmp/$name.dtbo
	if ! dtc -@ -q -I dts -O dtb -o "$in" "$here/$name.dtso"; then
		echo "not ok $((n + 1)) $name: $name.dtso does not compile"
		failed=$((failed + 1))
		n=$((n + 1))
		continue
	fi
	flat "$in" >"$tmp/in.flat"
	line=0
	start=
	: >"$tmp/args"
	: >"$tmp/want"
	: >"$tmp/err"
	: >"$tmp/always"
	while IFS= read -r l; do
		line=$((line + 1))
		case $l in
		'always - '* | 'always + '*)
			printf '%s\n' "${l#always }" | sed "s/\\\\t/$tab/g" >>"$tmp/always" ;;
		'arg '*)
			[ -n "$start" ] || start=$line
			printf '%s\n' "${l#arg }" >>"$tmp/args" ;;
		'- '* | '+ '*)
			printf '%s\n' "$l" | sed "s/\\\\t/$tab/g" >>"$tmp/want" ;;
		'! '*)
			printf '%s\n' "${l#! }" >"$tmp/err" ;;
		.)
			check "$name:${start:-$line}"
			start=
			: >"$tmp/args"
			: >"$tmp/want"
			: >"$tmp/err" ;;
		'' | '#'*) ;;
		*)
			echo "not ok $((n + 1)) $name:$line: cannot read '$l'"
			failed=$((failed + 1))
			n=$((n + 1)) ;;
		esac
	done <"$cases"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
