#!/bin/sh
# KUnit suites of ovpop (tests/kunit/, suites named ovpop_*): load
# ovpop_kunit.ko, which runs them, and turn each suite's test cases from
# /sys/kernel/debug/kunit/<suite>/results into cases "<suite>.<case>".
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

mod=$OVPOP_DIR/modules/ovpop_kunit.ko
kdir=/sys/kernel/debug/kunit

# shellcheck disable=SC2317 # used by cleanup
loaded() {
	grep -q '^ovpop_kunit ' /proc/modules
}

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	loaded && rmmod ovpop_kunit
}

# suite_cases SUITE: one case per test case of the suite. The case result
# lines are indented by one level (four spaces); failure locations logged
# before a result become its reason. Each case's log holds its result line,
# and before 6.3 the log is 512 bytes: a case that fails many expectations
# loses its result, so the cases found are checked against the plan
# ("1..N") and a failed suite must have a failed case.
suite_cases() {
	found=0
	failed=0
	plan=0
	suite=
	why=
	while IFS= read -r line; do
		case $line in
		'    1..'[0-9]*)
			plan=${line#    1..}
			continue
			;;
		"ok 1 $1"|"not ok 1 $1")
			suite=${line%% *}
			continue
			;;
		'    ok '[0-9]*|'    not ok '[0-9]*) ;;
		*'EXPECTATION FAILED at '*|*'ASSERTION FAILED at '*)
			[ -n "$why" ] || why=${line#*FAILED at }
			continue
			;;
		*)
			continue
			;;
		esac
		found=$((found + 1))
		rest=${line#    }
		res=ok
		case $rest in
		'not ok '*)
			res=fail
			rest=${rest#not ok }
			;;
		*)
			rest=${rest#ok }
			;;
		esac
		rest=${rest#* }
		name=${rest%% # *}
		directive=
		[ "$name" != "$rest" ] && directive=${rest#* # }
		case $directive in
		SKIP*|skip*)
			ktap_skip "$1.$name" "${directive#* }"
			;;
		*)
			if [ "$res" = ok ]; then
				ktap_ok "$1.$name"
			else
				failed=$((failed + 1))
				ktap_fail "$1.$name" "${why:-kunit case failed}"
			fi
			;;
		esac
		why=
	done <"$kdir/$1/results"
	if [ "$found" -eq 0 ] && [ "$plan" -eq 0 ]; then
		if [ "$suite" = ok ]; then
			ktap_ok "$1"
		else
			ktap_fail "$1" "suite failed without case results"
		fi
	elif [ "$found" -ne "$plan" ]; then
		ktap_fail "$1.results" "$found case results for $plan cases (a failing case's log overflowed?)"
	elif [ "$suite" != ok ] && [ "$failed" -eq 0 ]; then
		ktap_fail "$1" "suite failed, none of its cases"
	fi
}

ktap_begin kunit
ktap_at_exit cleanup

ktap_check debugfs_kunit [ -d "$kdir" ]
ktap_check insmod_kunit insmod "$mod"

suites=0
for s in "$kdir"/ovpop_*; do
	[ -r "$s/results" ] || continue
	suites=$((suites + 1))
	suite_cases "${s##*/}"
done
ktap_check suites_found [ "$suites" -gt 0 ]
ktap_check rmmod_kunit rmmod ovpop_kunit
ktap_end
