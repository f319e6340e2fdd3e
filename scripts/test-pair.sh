#!/bin/sh
# The test suite for one kernel/architecture pair (scripts/test.sh runs it
# for each pair of the matrix): build everything, boot the guest in mode
# `test` and in mode `control`, and judge the output (tests/CONTRACT.md).
#
#   OVPOP_KERNEL=6.12 OVPOP_ARCH=arm64 scripts/test-pair.sh
#
# Cases counted:
# - every leaf case of the `test` boot (lines indented by exactly four spaces:
#   `ok` passes, `not ok` fails, `# SKIP` is skipped);
# - host-side cases: each boot runs to ==OVPOP-EXIT== without a panic; the
#   test boot reports cases, every script it planned, and no script fails
#   without a failing case; each boot's dmesg has no kernel report (WARNING,
#   BUG, Oops, leak, ...) other than those a test announced with
#   `OVPOP-EXPECT: <ERE>` in /dev/kmsg (the ERE allows matching lines that
#   come after it, up to an `OVPOP-EXPECT-END: <ERE>` if any); each
#   scenario-* script fails at least one check in the control boot
#   ("control: <script> fails against the kernel alone"). The
#   control boot's own leaves are not counted;
# - the W=1 (and sparse) build of scripts/check.sh is clean.
# The last stdout line is "N passed, N failed[, N skipped]"; the exit status
# is non-zero if anything failed.
#
# Environment: OVPOP_OUT (work/log directory; default a new
# $OVPOP_CACHE/runs/<timestamp>), OVPOP_TIMEOUT (seconds per boot, 600;
# 1200 with OVPOP_STRESS, 3600 in the debug lane), OVPOP_KERNEL (6.12),
# OVPOP_VARIANT (kernel config variant; "debug" is the debug lane: one
# test boot with ovpop_lane=debug, which adds the stress tests and the
# kmemleak scan, and no control boot;
# OVPOP_LANE ("modules": the driver autoloading lane, on the kernel without
# a variant: one test boot with ovpop_lane=modules running only
# autoload.sh unless OVPOP_ONLY says otherwise), OVPOP_BOARD (lib.sh; a
# board other than virt runs only its scenario, lib.sh's ovpop_scenario,
# unless OVPOP_ONLY says otherwise, test and control boots),
# OVPOP_STRESS (run the stress tests with this many add-on board cycles;
# $debug_cycles by default in the debug lane, where every removal of the
# board waits 1-4 s for its regulator's delayed release),
# OVPOP_VERBOSE=1 (show the consoles), OVPOP_MODES (boots to run, default
# "test control"; for debugging the rig), OVPOP_ONLY (a comma-separated list
# of guest scripts to run, e.g. "fuzz,kmemleak"; for quick work).
set -u
debug_cycles=20

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

work=$(ovpop_workdir) || exit 1
log "test: logs in $work"
image="" dtb="" initrd=""
ovpop_prepare "$work"

results="$work/results.txt"
: >"$results"

# case_pass NAME / case_fail NAME [DETAIL...]: one host-side case (lib.sh's
# ovpop_pass/ovpop_fail), also in results.txt
case_pass() {
	ovpop_pass "$1"
	printf 'pass\thost\t%s\n' "$1" >>"$results"
}
case_fail() {
	printf 'fail\thost\t%s\n' "$1" >>"$results"
	ovpop_fail "$@"
}

# KTAP of one boot -> TSV lines:
#   pass|fail|skip <TAB> script <TAB> leaf line        (leaf cases)
#   toppass|topfail|topskip <TAB> script <TAB> line    (script results)
#   plan <TAB> N <TAB> line                            (top-level plan)
parse_ktap() {
	awk '
	function directive_off(s) { sub(/[ \t]+#.*$/, "", s); return s }
	function result(s) {
		if (s ~ /#[ \t]*[Ss][Kk][Ii][Pp]/) return "skip"
		return (s ~ /^not ok/) ? "fail" : "pass"
	}
	/^    # Subtest: / {
		cur = substr($0, 16); sub(/[ \t]+$/, "", cur); next
	}
	/^    (not )?ok [0-9]/ {
		line = substr($0, 5)
		print result(line) "\t" (cur == "" ? "?" : cur) "\t" line
		next
	}
	/^(not )?ok [0-9]/ {
		name = $0
		sub(/^(not )?ok [0-9]+[ \t]*(-[ \t]*)?/, "", name)
		print "top" result($0) "\t" directive_off(name) "\t" $0
		cur = ""
		next
	}
	/^1\.\.[0-9]/ {
		n = substr($0, 4); sub(/[^0-9].*$/, "", n)
		print "plan\t" n "\t" $0
	}
	' "$1"
}

# dmesg of one boot -> "expect <TAB> NR <TAB> END <TAB> ERE" (END: the line
# of the first OVPOP-EXPECT-END with that ERE after it, or one past the
# last) and "report <TAB> NR <TAB> line"
scan_dmesg() {
	awk '
	{ line = $0; sub(/^\[[ 0-9.]*\][ ]?/, "", line) }
	index(line, "OVPOP-EXPECT: ") {
		e = line; sub(/^.*OVPOP-EXPECT: /, "", e)
		n++; ere[n] = e; start[n] = NR; end[n] = 0
		next
	}
	index(line, "OVPOP-EXPECT-END: ") {
		e = line; sub(/^.*OVPOP-EXPECT-END: /, "", e)
		for (i = 1; i <= n; i++)
			if (ere[i] == e && !end[i]) end[i] = NR
		next
	}
	line ~ /Kernel command line|kernel command line parameters|^ +ovpop_|memory leak detector initialized/ { next }
	line ~ ENVIRON["OVPOP_REPORT_ERE"] {
		print "report\t" NR "\t" line
	}
	END {
		for (i = 1; i <= n; i++)
			print "expect\t" start[i] "\t" (end[i] ? end[i] : NR + 1) "\t" ere[i]
	}
	' "$1"
}

# boot MODE: run the guest, split its console into WORK/MODE.{console,ktap,dmesg}.
# Sets boot_ok (yes/no), boot_why, boot_rc.
# boot_start MODE: boots the guest in the background. The boots of a pair
# run at the same time: the control boot mostly waits for devices that
# never come.
boot_start() {
	log "test: booting mode $1 (console: $work/$1.console)"
	if [ "${OVPOP_VERBOSE:-0}" = 1 ]; then
		"$here/qemu.sh" "$image" "$dtb" "$initrd" "$1" \
			"$work/$1.console.raw" >&2 &
	else
		"$here/qemu.sh" "$image" "$dtb" "$initrd" "$1" \
			"$work/$1.console.raw" >/dev/null &
	fi
	eval "boot_pid_$1=\$!"
}

# boot MODE: waits for that boot and reads its console.
boot() {
	mode=$1
	raw="$work/$mode.console.raw"
	qrc=0
	eval "wait \"\$boot_pid_$mode\"" || qrc=$?
	tr -d '\r' <"$raw" >"$work/$mode.console"
	rm -f "$raw"
	sed -n '/^==OVPOP-TESTS-BEGIN/,/^==OVPOP-TESTS-END==/p' "$work/$mode.console" >"$work/$mode.ktap"
	sed -n '/^==OVPOP-DMESG-BEGIN==/,/^==OVPOP-DMESG-END==/p' "$work/$mode.console" |
		sed '1d;$d' >"$work/$mode.dmesg"
	if ! grep -q '^==OVPOP-DMESG-END==' "$work/$mode.console"; then
		# No dmesg dump (crash, timeout): scan what the console showed.
		cp "$work/$mode.console" "$work/$mode.dmesg"
	fi
	boot_rc=$(sed -n 's/.*==OVPOP-EXIT \([0-9][0-9]*\)==.*/\1/p' "$work/$mode.console" | tail -n 1)
	boot_ok=yes
	boot_why=""
	if grep -q 'Kernel panic - not syncing' "$work/$mode.console"; then
		boot_ok=no
		boot_why="kernel panic: $(grep -m 1 'Kernel panic - not syncing' "$work/$mode.console")"
	elif [ -z "$boot_rc" ]; then
		boot_ok=no
		if [ "$qrc" -eq 124 ]; then
			boot_why="timeout after ${OVPOP_TIMEOUT:-600}s"
		else
			boot_why="no ==OVPOP-EXIT== marker (crash or QEMU failure; qemu.sh exit $qrc)"
		fi
	fi
	boot_tail=""
	if [ "$boot_ok" = no ]; then
		boot_why="$boot_why; last console lines of $work/$mode.console:"
		boot_tail=$(tail -n 15 "$work/$mode.console")
	fi
}

# check_dmesg MODE: one host-side case.
check_dmesg() {
	mode=$1
	scan_dmesg "$work/$mode.dmesg" >"$work/$mode.scan"
	grep '^expect	' "$work/$mode.scan" >"$work/$mode.expect" || true
	bad=""
	nbad=0
	while IFS='	' read -r kind nr line; do
		[ "$kind" = report ] || continue
		allowed=no
		while IFS='	' read -r _ enr eend ere; do
			if [ "$enr" -ge "$nr" ] || [ "$nr" -ge "$eend" ]; then
				continue
			fi
			rc=0
			printf '%s\n' "$line" | grep -Eq -e "$ere" 2>/dev/null || rc=$?
			if [ "$rc" -eq 0 ]; then
				allowed=yes
				break
			elif [ "$rc" -eq 2 ]; then
				log "test: invalid OVPOP-EXPECT ERE in the $mode boot: $ere"
			fi
		done <"$work/$mode.expect"
		if [ "$allowed" = no ]; then
			nbad=$((nbad + 1))
			bad="$bad
$line"
		fi
	done <"$work/$mode.scan"
	name="dmesg ($mode boot): no unexpected kernel reports"
	if [ "$nbad" -eq 0 ]; then
		nexp=$(grep -c '^report	' "$work/$mode.scan")
		case_pass "$name (0 unexpected, $nexp announced by tests)"
	else
		printf '%s\n' "$bad" | sed '1d' >"$work/$mode.reports"
		case_fail "$name" "$nbad unexpected line(s) (all in $work/$mode.reports):" \
			"$(head -n 40 "$work/$mode.reports")"
	fi
}

modes=${OVPOP_MODES:-test control}
if [ -n "${OVPOP_ONLY:-}" ]; then
	OVPOP_APPEND="${OVPOP_APPEND:+$OVPOP_APPEND }ovpop_only=$OVPOP_ONLY"
	export OVPOP_APPEND
fi
if [ "${OVPOP_VARIANT:-}" = debug ]; then
	# loglevel=4: errors reach the console, also if the guest hangs
	# before it dumps its log (KASAN and kmemleak report at KERN_ERR)
	OVPOP_APPEND="${OVPOP_APPEND:+$OVPOP_APPEND }loglevel=4 ovpop_lane=debug"
	OVPOP_STRESS=${OVPOP_STRESS:-$debug_cycles}
	OVPOP_TIMEOUT=${OVPOP_TIMEOUT:-3600}
	export OVPOP_APPEND OVPOP_TIMEOUT
	modes=${OVPOP_MODES:-test}
fi
if [ -n "${OVPOP_STRESS:-}" ]; then
	# the stress tests' 1000 cycles and 90 s of concurrency: the test boot
	# took 600 s on a new 2-core machine building two kernels beside it
	OVPOP_TIMEOUT=${OVPOP_TIMEOUT:-1200}
	export OVPOP_TIMEOUT
fi
if [ "${OVPOP_LANE:-}" = modules ]; then
	# the driver autoloading lane: one test boot running autoload.sh (after
	# the setup), with mdev as the uevent helper and no module loaded
	# before (tests/guest/init); the rest of the suite runs with the
	# drivers loaded at boot or built in
	OVPOP_APPEND="${OVPOP_APPEND:+$OVPOP_APPEND }ovpop_lane=modules"
	[ -n "${OVPOP_ONLY:-}" ] ||
		OVPOP_APPEND="$OVPOP_APPEND ovpop_only=autoload"
	export OVPOP_APPEND
	modes=${OVPOP_MODES:-test}
fi
if [ "${OVPOP_BOARD:-virt}" != virt ]; then
	# a board lane: its scenario (lib.sh) on the board's own tree; the
	# rest of the suite runs on virt with the same kernel
	if [ -z "${OVPOP_ONLY:-}" ]; then
		OVPOP_APPEND="${OVPOP_APPEND:+$OVPOP_APPEND }ovpop_only=$ovpop_scenario"
		export OVPOP_APPEND
	fi
fi
if [ -n "${OVPOP_STRESS:-}" ]; then
	OVPOP_APPEND="${OVPOP_APPEND:+$OVPOP_APPEND }ovpop_stress=$OVPOP_STRESS"
	export OVPOP_APPEND
fi
for mode in $modes; do
	case $mode in
	test | control) boot_start "$mode" ;;
	esac
done

# --- test boot --------------------------------------------------------------
for mode in $modes; do
	[ "$mode" = test ] || continue
	boot test
	parse_ktap "$work/test.ktap" >"$work/test.leaves"
	np=$(grep -c '^pass	' "$work/test.leaves")
	nf=$(grep -c '^fail	' "$work/test.leaves")
	ns=$(grep -c '^skip	' "$work/test.leaves")
	ovpop_count "$np" "$nf" "$ns"
	grep -E '^(pass|fail|skip)	' "$work/test.leaves" >>"$results"
	# Each failing leaf.
	grep '^fail	' "$work/test.leaves" | while IFS='	' read -r _ script line; do
		printf 'FAIL %s: %s\n' "$script" "$line"
	done
	log "test: test boot: $np passed, $nf failed, $ns skipped (leaf cases)"

	if [ "$boot_ok" = yes ] && [ "$boot_rc" -ne 0 ] && [ "$nf" -eq 0 ]; then
		boot_ok=no
		boot_why="run.sh exited $boot_rc but no case failed"
	fi
	if [ "$boot_ok" = yes ]; then
		case_pass "boot (test): the guest ran the suite to the end"
	else
		case_fail "boot (test): the guest ran the suite to the end" "$boot_why" \
			"$boot_tail"
	fi

	if [ $((np + nf + ns)) -gt 0 ]; then
		case_pass "test: the guest reported test cases"
	else
		case_fail "test: the guest reported test cases" "no leaf cases in $work/test.ktap"
	fi

	# Every planned script reported, no script failed without a failing leaf.
	plan=$(sed -n 's/^plan	\([0-9]*\)	.*/\1/p' "$work/test.leaves" | head -n 1)
	ntop=$(grep -c '^top' "$work/test.leaves")
	if [ -n "$plan" ] && [ "$ntop" -ne "$plan" ]; then
		case_fail "test: every planned script reported" "$plan planned, $ntop reported"
	elif [ -n "$plan" ]; then
		case_pass "test: every planned script reported"
	fi
	grep '^topfail	' "$work/test.leaves" | while IFS='	' read -r _ script _; do
		if ! grep -q "^fail	$script	" "$work/test.leaves"; then
			printf '%s\n' "$script"
		fi
	done >"$work/test.silentfail"
	while IFS= read -r script; do
		case_fail "$script: the script failed without a failing case"
	done <"$work/test.silentfail"

	check_dmesg test
done

# --- control boot -------------------------------------------------------------
for mode in $modes; do
	[ "$mode" = control ] || continue
	boot control
	if [ "$boot_ok" = yes ]; then
		case_pass "boot (control): the guest ran the scenarios to the end"
	else
		case_fail "boot (control): the guest ran the scenarios to the end" "$boot_why" \
			"$boot_tail"
	fi
	parse_ktap "$work/control.ktap" >"$work/control.leaves"
	# The scenarios: every scenario-* script either boot reported.
	cat "$work/control.leaves" "$work/test.leaves" 2>/dev/null |
		awk -F '\t' '$1 != "plan" && $2 ~ /^scenario-/ { print $2 }' |
		LC_ALL=C sort -u >"$work/control.scenarios"
	if [ ! -s "$work/control.scenarios" ]; then
		log "test: no scenario-* script in either boot"
	fi
	while IFS= read -r script; do
		name="control: $script fails against the kernel alone"
		fails=$(awk -F '\t' -v s="$script" '$1 == "fail" && $2 == s { print $3 }' "$work/control.leaves")
		ran=$(awk -F '\t' -v s="$script" '$2 == s { n++ } END { print n + 0 }' "$work/control.leaves")
		if [ -n "$fails" ]; then
			case_pass "$name"
			printf '%s\n' "$fails" | sed 's/^/     failed as expected: /'
		elif [ "$ran" -eq 0 ]; then
			case_fail "$name" "it did not run in the control boot"
		else
			case_fail "$name" "every check passed (or was skipped) without ovpop: it tests nothing"
		fi
	done <"$work/control.scenarios"
	check_dmesg control
done

# --- static checks ------------------------------------------------------------
# (a board lane's kernel and sources are those of its virt lane: checked there)
name="build: W=1 (and sparse where it can) clean"
if [ "${OVPOP_BOARD:-virt}" != virt ]; then
	:
elif "$here/check.sh" build "$kdir" >"$work/check.log" 2>&1; then
	case_pass "$name"
else
	case_fail "$name" "$(tail -n 30 "$work/check.log")"
fi

log "test: logs in $work (results.txt, <mode>.console, <mode>.dmesg, check.log)"
ovpop_summary
[ "$ovpop_failed" -eq 0 ]
