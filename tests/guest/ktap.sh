# shellcheck shell=sh
# KTAP output for one in-guest test script (tests/CONTRACT.md). Sourced.
#
#   ktap_begin NAME            start the subtest
#   ktap_ok NAME               a passed case
#   ktap_fail NAME REASON      a failed case
#   ktap_skip NAME REASON      a skipped case
#   ktap_check NAME CMD...     ok if CMD succeeds, else not ok
#   ktap_eq NAME WANT GOT      ok if the strings are equal
#   ktap_match NAME ERE GOT    ok if GOT matches the extended regex
#   ktap_diag TEXT             a diagnostic line
#   ktap_diag_file FILE N [PREFIX]
#                              FILE's first N lines as diagnostics
#   ktap_end                   print the subtest, exit 0 iff no case failed
#   ktap_at_exit FUNC          run FUNC (cleanup) before ktap_end prints,
#                              also when the script exits early
#   expect_kmsg ERE            tell the host's log scan that kernel lines
#                              matching ERE are triggered on purpose
#   expect_kmsg_end ERE        from here on, they are not
#
# Cases are collected and printed by ktap_end, after the cleanup, with the
# plan first: the nested block of CONTRACT.md, every line indented four
# spaces. Case names and reasons are kept on one line, without '#'.

ktap__name=
ktap__lines=
ktap__n=0
ktap__failed=0
ktap__cleanup=
ktap__done=

ktap__nl='
'

# One line, no '#' (it would start a directive), no leading/trailing blanks.
ktap__clean() {
	printf '%s' "$*" | tr '\n\t#' '  _' | sed 's/  */ /g; s/^ //; s/ $//'
}

ktap__add() { # result name [directive]
	ktap__n=$((ktap__n + 1))
	ktap__line="$1 $ktap__n $(ktap__clean "$2")"
	if [ -n "${3-}" ]; then
		ktap__line="$ktap__line # $(ktap__clean "$3")"
	fi
	ktap__lines="$ktap__lines    $ktap__line$ktap__nl"
}

ktap_begin() {
	ktap__name=$1
	trap 'ktap__exit' EXIT
	trap 'exit 130' INT TERM
}

ktap_at_exit() {
	ktap__cleanup="$1"
}

ktap_ok() {
	ktap__add ok "$1"
}

ktap_fail() {
	ktap__failed=$((ktap__failed + 1))
	ktap__add 'not ok' "$1" "${2:-failed}"
}

ktap_skip() {
	ktap__add ok "$1" "SKIP ${2:-skipped}"
}

ktap_check() {
	ktap__cname=$1
	shift
	if "$@"; then
		ktap_ok "$ktap__cname"
		return 0
	fi
	ktap_fail "$ktap__cname" "failed: $*"
	return 1
}

# ktap_refused CASE CMD...: the command must fail
ktap_refused() {
	ktap__cname=$1
	shift
	if "$@"; then
		ktap_fail "$ktap__cname" "succeeded: $*"
		return 1
	fi
	ktap_ok "$ktap__cname"
}

ktap_eq() {
	if [ "$2" = "$3" ]; then
		ktap_ok "$1"
		return 0
	fi
	ktap_fail "$1" "expected '$2', got '$3'"
	return 1
}

ktap_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		ktap_ok "$1"
		return 0
	fi
	ktap_fail "$1" "'$3' does not match '$2'"
	return 1
}

ktap_diag() {
	ktap__lines="$ktap__lines    # $(ktap__clean "$*")$ktap__nl"
}

ktap_diag_file() {
	head -n "$2" "$1" >"$1.head"
	# not a pipeline: ktap_diag must run in this shell
	while IFS= read -r ktap__l; do
		ktap_diag "${3:-}$ktap__l"
	done <"$1.head"
	rm -f "$1.head"
}

expect_kmsg() {
	printf 'OVPOP-EXPECT: %s\n' "$1" >/dev/kmsg 2>/dev/null || :
}

expect_kmsg_end() {
	printf 'OVPOP-EXPECT-END: %s\n' "$1" >/dev/kmsg 2>/dev/null || :
}

ktap__exit() {
	ktap__rc=$?
	[ -n "$ktap__done" ] && return
	if [ -z "$ktap__name" ]; then
		exit "$ktap__rc"
	fi
	if [ "$ktap__rc" -ne 0 ] && [ -z "$ktap__ending" ]; then
		ktap_fail "script_completed" "exited early with status $ktap__rc"
	fi
	ktap_end
}

ktap__ending=
ktap_end() {
	ktap__ending=1
	if [ -n "$ktap__cleanup" ]; then
		ktap__c=$ktap__cleanup
		ktap__cleanup=
		"$ktap__c"
	fi
	if [ "$ktap__n" -eq 0 ]; then
		ktap_fail "cases_run" "the script ran no case"
	fi
	ktap__done=1
	printf '    KTAP version 1\n'
	printf '    # Subtest: %s\n' "$ktap__name"
	printf '    1..%d\n' "$ktap__n"
	printf '%s' "$ktap__lines"
	if [ "$ktap__failed" -eq 0 ]; then
		exit 0
	fi
	exit 1
}
