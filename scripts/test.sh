#!/bin/sh
# The test suite (make test, .ci/run): the style checks (scripts/check.sh
# style) and ovl's parameter corpus (tests/params/run.sh, on the host) once,
# then scripts/test-pair.sh for every kernel/architecture pair
# of the matrix; a result line for each, and the totals as the last line,
# "N passed, N failed". Exits non-zero on any failure.
#
#   scripts/test.sh                              every pair
#   OVPOP_MATRIX="6.12/arm64" scripts/test.sh    a subset, for quick work
#
# OVPOP_MATRIX is a list of VERSION/ARCH[/VARIANT]; the variant "debug" is
# the debug lane (scripts/configs/ARCH-debug.config: KASAN, kmemleak,
# lockdep, kobject release debugging, ...), which also runs the stress tests
# (OVPOP_STRESS cycles, see test-pair.sh) and, in a matrix with other
# pairs, runs in the background beside them (its output comes last);
# "modules" is not a kernel variant but the driver autoloading lane
# (OVPOP_LANE: the 6.12 kernel, whose overlay drivers are modules,
# scripts/configs/ARCH-modules.config, loaded there by mdev), which runs
# tests/guest/autoload.sh only; "zc702", "raspi3b" and
# "vexpress-a15" are not kernel variants either but the board lanes (OVPOP_BOARD,
# lib.sh: the kernel's own board tree on the QEMU machine of the board,
# with the virt lane's kernel; the Zynq-7000 runs the FPGA scenario, the
# Raspberry Pi 3B and the Versatile Express their add-on overlays; after
# the debug lane in the background). Without it, OVPOP_KERNEL and
# OVPOP_ARCH, if set, name one pair.
# Other variables as in test-pair.sh.
# The variant "patched" is the kernel with the overlay core's series
# (patches/, scripts/kernel.sh): the whole guest suite again there.
# The whole suite (none of these set), or OVPOP_BENCH=1, also runs the
# benchmark command on a small scale (scripts/bench.sh -n 10,100 -r 3),
# the packaging test (scripts/test-pkg.sh; alone: OVPOP_PKG=1 adds it
# to a subset, or run it directly) and, or OVPOP_UNITTEST=1, the kernel's
# OF unittest on the stock and the patched 6.12 arm64 kernel
# (scripts/of-unittest.sh: the patched one must fail no test the stock one
# passes and refuse the unittest's bad overlays with the same messages).
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
# each pair names its board (pair_run); the benchmark and the packaging
# test run on virt
unset OVPOP_BOARD

# The foreground pairs in the order their kernels are built (see prebuild):
# the quickest build first (the first guest waits for it), the longest
# (7.3) while the longest guest (6.12 arm64, with the stress tests) runs.
all="6.12/arm64 7.3/arm64 6.12/arm 6.1/arm64 6.12/arm64/patched 6.12/arm64/modules 6.12/arm64/debug
6.12/arm/zc702 6.12/arm64/raspi3b 6.12/arm/vexpress-a15"
# this pair also runs the stress tests, with the full 1000 cycles (the debug
# lane runs fewer: every removal of the board waits there for a delayed
# release); its memory figures are not blurred by KASAN's quarantine
stress_pair=6.12/arm64
if [ -n "${OVPOP_MATRIX:-}" ]; then
	matrix=$OVPOP_MATRIX
elif [ -n "${OVPOP_KERNEL:-}${OVPOP_ARCH:-}" ]; then
	matrix="${OVPOP_KERNEL:-6.12}/${OVPOP_ARCH:-arm64}"
else
	matrix=$all
fi
# the whole suite runs the OF unittest (its kernels built by prebuild)
unittest=
if [ -z "${OVPOP_MATRIX:-}${OVPOP_KERNEL:-}${OVPOP_ARCH:-}" ] || [ "${OVPOP_UNITTEST:-}" = 1 ]; then
	unittest=1
fi

work=$(ovpop_workdir) || exit 1

results=""

# pair_split PAIR: sets version, arch, variant (of the kernel's config),
# board (OVPOP_BOARD, lib.sh: a board is not a kernel variant; its lane
# boots the virt lane's kernel), lane (OVPOP_LANE: "modules", not a variant
# either) and out (the pair's logs: $out.log ...)
pair_split() {
	version=${1%%/*}
	arch=${1#*/}
	variant=
	case $arch in
	*/*)
		variant=${arch#*/}
		arch=${arch%%/*}
		;;
	esac
	board=
	lane=
	case $variant in
	zc702 | raspi3b | vexpress-a15)
		board=$variant
		variant=
		;;
	modules)
		lane=$variant
		variant=
		;;
	esac
	out="$work/$version-$arch${variant:+-$variant}${board:+-$board}${lane:+-$lane}"
}

# Every architecture of the matrix, for deps.sh
archs=
for pair in $matrix; do
	pair_split "$pair"
	case " $archs " in
	*" $arch "*) ;;
	*) archs="$archs $arch" ;;
	esac
done
# shellcheck disable=SC2086 # a list of words
"$here/deps.sh" $archs || die "test: deps.sh failed"

# The debug lane's guest runs longest and mostly waits (delayed kobject
# releases under CONFIG_DEBUG_KOBJECT_RELEASE, KASAN): its pairs run in the
# background from the start, beside the others, niced below their guests.
# They build their kernel themselves, niced as the builder's, then run
# their guest, in a session of their own that an interrupt takes down.
# The board lanes follow them there, one pair after the other:
# their kernel is a virt lane's, built by then (or waited for).
bg=
fg=
for pair in $matrix; do
	case $pair in
	*/debug | */zc702 | */raspi3b | */vexpress-a15) bg="$bg $pair" ;;
	*) fg="$fg $pair" ;;
	esac
done
# alone, a debug pair runs in the foreground, its output shown as it comes
if [ -z "$fg" ]; then
	fg=$bg
	bg=
fi

# The other kernels are built one after another in the background, in the
# matrix's order, while the pairs before them run their guests (a kernel
# already built is found at once). A pair whose kernel is being built waits
# for it (kernel.sh locks each version), then finds it built. The builds
# run niced: the guests' wall-clock waits come first.
# They run in a session of their own (its id in prebuild.sid). When the
# first is done (or there is none), prebuild.first appears: the background
# chain starts its own build then, not before (the first foreground guest
# waits for the first kernel, and a debug build of the same version would
# take the version's lock from it for 20 minutes). The OF unittest's two
# kernels come last.
prebuild() {
	# shellcheck disable=SC2016 # expanded by the new session's sh
	{
		for p in $fg; do
			pair_split "$p"
			[ -n "$board$lane" ] || echo "$version $arch $variant"
		done
		[ -z "$unittest" ] || printf '6.12 arm64 %s\n' unittest patched-unittest
	} |
		setsid sh -c 'echo $$ >"$1/prebuild.sid"
		while read -r v a x; do
			# shellcheck disable=SC2086 # no variant: no word
			nice -n 10 "$2/kernel.sh" "$v" "$a" $x </dev/null \
				>/dev/null 2>>"$1/prebuild.log" || true
			: >"$1/prebuild.first"
		done
		: >"$1/prebuild.first"' sh "$work" "$here"
}

# pair_run PAIR [NICE]: test-pair.sh for PAIR; its output goes to
# $work/<pair>.log, and also to stdout unless NICE is given (a background
# pair: once the builder's first kernel is done, its kernel is built at
# nice 10, then its guest runs at NICE, in a new session whose id goes to
# <pair>.sid; stderr to <pair>.stderr).
# <pair>.time: start and end.
pair_run() {
	pair_split "$1"
	stress=${OVPOP_STRESS:-}
	[ "$1" = "$stress_pair" ] && stress=${stress:-1000}
	t0=$(date +%s)
	if [ -z "${2:-}" ]; then
		OVPOP_KERNEL=$version OVPOP_ARCH=$arch OVPOP_VARIANT=$variant \
			OVPOP_BOARD=${board:-virt} OVPOP_LANE=$lane OVPOP_STRESS=$stress \
			OVPOP_OUT=$out "$here/test-pair.sh" |
			tee "$out.log"
	else
		# shellcheck disable=SC2016 # expanded by the new session's sh
		OVPOP_KERNEL=$version OVPOP_ARCH=$arch OVPOP_VARIANT=$variant \
			OVPOP_BOARD=${board:-virt} OVPOP_LANE=$lane OVPOP_STRESS=$stress \
			OVPOP_OUT=$out setsid sh -c \
			'echo $$ >"$1.sid"
			while [ ! -e "$4/prebuild.first" ] && [ ! -e "$4/stop" ]; do
				sleep 2
			done
			[ ! -e "$4/stop" ] || exit
			nice -n 10 "$2/kernel.sh" "$OVPOP_KERNEL" "$OVPOP_ARCH" \
				"$OVPOP_VARIANT" >/dev/null || exit
			exec nice -n "$3" "$2/test-pair.sh"' \
			sh "$out" "$here" "$2" "$work" >"$out.log" 2>"$out.stderr"
		# the session is over: its id may be another's now
		rm -f "$out.sid"
	fi
	echo "$t0 $(date +%s)" >"$out.time"
}

# bg_kill: takes down the background chain (first: an asynchronous list
# ignores SIGINT, and it would start its next pair; unless it has ended,
# bg.done, and its pid may be another's), then the sessions of the builder
# and of the background pairs (kernel.sh, make, test-pair.sh, qemu). A
# session that writes its .sid after the loop below read them sees "stop"
# and ends.
bg_kill() {
	: >"$work/stop"
	if [ -n "${bg_pid:-}" ] && [ ! -e "$work/bg.done" ]; then
		kill "$bg_pid" 2>/dev/null
	fi
	for sid in "$work"/*.sid; do
		sid=$(cat "$sid" 2>/dev/null) && kill -- "-$sid" 2>/dev/null
	done
}

# pair_tally PAIR: adds the result line of PAIR's log to the totals
pair_tally() {
	pair_split "$1"
	last=$(tail -n 1 "$out.log")
	# "N passed, N failed[, N skipped]"; anything else: the run broke
	# shellcheck disable=SC2086 # split into words on purpose
	set -- $last
	if [ $# -ge 4 ] && [ "$2" = passed, ] && [ "${4%,}" = failed ]; then
		p=$1 f=$3 s=0
		[ $# -ge 6 ] && s=$5
	else
		p=0 f=1 s=0
		log "test: $pair ended without a result line"
		[ -s "$out.stderr" ] && tail -n 20 "$out.stderr" | sed 's/^/     /'
	fi
	ovpop_count "$p" "$f" "$s"
	# shellcheck disable=SC2046 # two numbers
	set -- $(cat "$out.time" 2>/dev/null || echo 0 0)
	results="$results$pair: $p passed, $f failed, $s skipped ($(($2 - $1)) s)
"
}

prebuild &
prebuild_pid=$!
bg_pid=
if [ -n "$bg" ]; then
	{
		for pair in $bg; do
			pair_run "$pair" 5
		done
		: >"$work/bg.done"
	} &
	bg_pid=$!
fi
trap bg_kill EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Once for all pairs: checkpatch and shellcheck do not depend on the kernel
start=$(date +%s)
name="style: checkpatch --strict, shellcheck, kernel-doc, call graph"
if "$here/check.sh" style >"$work/style.log" 2>&1; then
	ovpop_pass "$name"
	results="style: 1 passed, 0 failed, 0 skipped ($(($(date +%s) - start)) s)
"
else
	ovpop_fail "$name" "$(cat "$work/style.log")"
	results="style: 0 passed, 1 failed, 0 skipped
"
fi
# Once: ovl's parameter engine (tools/ovl-params, built for the host with
# the system's libfdt) on its corpus (tests/params), under sh and under
# busybox sh; each case counts once
start=$(date +%s)
ptool="$work/ovl-params"
if make -s -C "$here/../tools/ovl-params" CFLAGS="-O2 -Werror" OUT="$ptool" \
	>"$work/params.log" 2>&1 &&
	sh "$here/../tests/params/run.sh" "$ptool" >>"$work/params.log" 2>&1 &&
	busybox sh "$here/../tests/params/run.sh" "$ptool" >"$work/params-busybox.log" 2>&1; then
	np=$(grep -c '^ok ' "$work/params.log")
	ovpop_count "$np" 0
	printf 'ok   params: %s cases of tests/params, under sh and busybox sh\n' "$np"
	results="${results}params: $np passed, 0 failed, 0 skipped ($(($(date +%s) - start)) s)
"
else
	# the build or a run broke: one failure at least
	nf=$(cat "$work/params.log" "$work/params-busybox.log" 2>/dev/null | grep -c '^not ok ')
	[ "$nf" -gt 0 ] || nf=1
	ovpop_count 0 "$nf"
	printf 'FAIL params: tools/ovl-params on tests/params\n'
	cat "$work/params.log" "$work/params-busybox.log" 2>/dev/null | grep -v '^ok ' | sed 's/^/     /'
	results="${results}params: 0 passed, $nf failed, 0 skipped
"
fi
for pair in $fg; do
	log "test: ===== $pair ====="
	pair_run "$pair"
	pair_tally "$pair"
done

# The patched kernel refuses the suite's bad overlays with the stock
# kernel's messages: badinput.sh's "CASE: kernel: OF: ..." lines of the two
# test boots, in order. One case, when the matrix has both pairs; badinput
# must have run to its end in both ("bad inputs: " is its last diagnostic).
both=0
for pair in $matrix; do
	case $pair in
	6.12/arm64 | 6.12/arm64/patched) both=$((both + 1)) ;;
	esac
done
stock_k="$work/6.12-arm64/test.ktap"
patched_k="$work/6.12-arm64-patched/test.ktap"
if [ "$both" -eq 2 ]; then
	for k in "$stock_k" "$patched_k"; do
		sed -n 's/^ *# \([^ ]*: kernel: OF: .*\)$/\1/p' "$k" >"$k.of" 2>/dev/null
	done
	nk=$(wc -l <"$stock_k.of" 2>/dev/null | tr -d ' ')
	name="patched: the bad overlays' OF messages as on the stock kernel ($nk lines)"
	if [ "$(grep -l '# bad inputs: ' "$stock_k" "$patched_k" 2>/dev/null | wc -l)" -ne 2 ]; then
		ovpop_fail "$name" "badinput.sh did not run to its end in both test boots"
		results="${results}patched-messages: 0 passed, 1 failed, 0 skipped
"
	elif [ "$nk" -gt 0 ] && cmp -s "$stock_k.of" "$patched_k.of"; then
		ovpop_pass "$name"
		results="${results}patched-messages: 1 passed, 0 failed, 0 skipped
"
	else
		ovpop_fail "$name" "$(diff "$stock_k.of" "$patched_k.of" | head -n 20)"
		results="${results}patched-messages: 0 passed, 1 failed, 0 skipped
"
	fi
fi

# Every kernel of the matrix was needed by a pair: the builder is done
wait "$prebuild_pid"
rm -f "$work/prebuild.sid"

# The kernel's OF unittest on the stock and the patched kernel: one case
if [ -n "$unittest" ]; then
	log "test: ===== OF unittest, stock and patched ====="
	start=$(date +%s)
	ulog="$work/unittest.log"
	if OVPOP_OUT="$work/unittest" "$here/of-unittest.sh" 6.12 >"$ulog" 2>&1; then
		ovpop_pass "unittest: OF unittest, 6.12 arm64: $(grep -e '^unittest: ' -e '^patched-unittest: ' "$ulog" |
			sed 's/^patched-unittest:/patched:/; s/^unittest:/stock:/' | paste -sd ';' - | sed 's/;/; /')"
		results="${results}unittest: 1 passed, 0 failed, 0 skipped ($(($(date +%s) - start)) s)
"
	else
		ovpop_fail "unittest: scripts/of-unittest.sh 6.12" "$(tail -n 30 "$ulog")"
		results="${results}unittest: 0 passed, 1 failed, 0 skipped
"
	fi
fi

# Packaging (scripts/test-pkg.sh): make install and Debian's dkms against
# the 6.12 arm64 kernel, in private directories. One case.
if [ -z "${OVPOP_MATRIX:-}${OVPOP_KERNEL:-}${OVPOP_ARCH:-}" ] || [ "${OVPOP_PKG:-}" = 1 ]; then
	log "test: ===== packaging ====="
	start=$(date +%s)
	if OVPOP_OUT="$work/pkg" "$here/test-pkg.sh" >"$work/pkg.log" 2>&1; then
		ovpop_pass "pkg: make install, dkms add/build/install/remove, BUILD_EXCLUSIVE skips ($(tail -n 1 "$work/pkg.log"))"
		results="${results}pkg: 1 passed, 0 failed, 0 skipped ($(($(date +%s) - start)) s)
"
	else
		ovpop_fail "pkg: scripts/test-pkg.sh" \
			"$(grep -e '^FAIL' -e '^     ' "$work/pkg.log")" \
			"$(tail -n 5 "$work/pkg.log")"
		results="${results}pkg: 0 passed, 1 failed, 0 skipped
"
	fi
fi

# The benchmark command (README), small: it must run, create and remove the
# right devices in every run and write its report. Its guest clock counts
# instructions, so its figures repeat on any host: a regression of ovpop's
# own work shows in two ratios against the kernel's path (placement a,
# platform nodes, N = 100; 0.99 and 0.81 when written), which must stay
# within bounds. scripts/bench.sh is run for the full figures.
# bench_gate REPORT: prints the two ratios; fails if out of bounds
bench_gate() {
	awk -F'|' '
	/^## Apply/ { s = "apply"; next }
	/^## Removal/ { s = "removal"; next }
	/^## / { s = "" }
	s != "" && $2 ~ /^ *a *$/ && $3 ~ /^ *plat *$/ && $4 + 0 == 100 { r[s] = $7 + 0 }
	END {
		printf "apply %.2fx the kernel'"'"'s (at most 1.02), removal %.2fx (at most 1.00)\n",
			r["apply"], r["removal"]
		exit !(r["apply"] > 0 && r["apply"] <= 1.02 && r["removal"] > 0 && r["removal"] <= 1.00)
	}' "$1"
}

if [ -z "${OVPOP_MATRIX:-}${OVPOP_KERNEL:-}${OVPOP_ARCH:-}" ] || [ "${OVPOP_BENCH:-}" = 1 ]; then
	log "test: ===== benchmark (small) ====="
	start=$(date +%s)
	bout="$work/bench"
	if OVPOP_OUT="$bout" OVPOP_KERNEL=6.12 OVPOP_ARCH=arm64 \
		"$here/bench.sh" -n 10,100 -r 3 -o "$bout/report" >"$work/bench.log" 2>&1 &&
		grep -q '^## Targets' "$bout/report/bench.md" &&
		grep -q '<svg' "$bout/report/bench.svg" &&
		gate=$(bench_gate "$bout/report/bench.md"); then
		ovpop_pass "bench: scripts/bench.sh -n 10,100 -r 3 (devices right, report and plot written; $gate)"
		results="${results}bench: 1 passed, 0 failed, 0 skipped ($(($(date +%s) - start)) s)
"
	else
		ovpop_fail "bench: scripts/bench.sh -n 10,100 -r 3${gate:+ ($gate)}" \
			"$(tail -n 20 "$work/bench.log")"
		results="${results}bench: 0 passed, 1 failed, 0 skipped
"
	fi
fi

# The background pairs last: the packaging test and the benchmark (its clock
# counts instructions) ran beside them
for pair in $bg; do
	log "test: ===== $pair (in the background since the start; its output) ====="
done
[ -z "$bg_pid" ] || wait "$bg_pid"
for pair in $bg; do
	pair_split "$pair"
	cat "$out.log"
	pair_tally "$pair"
done
trap - EXIT INT TERM

printf '\n'
printf '%s' "$results" | sed 's/^/result /'
log "test: logs in $work"
# The last line is exactly "N passed, N failed" (CI reads it); skips before
[ "$ovpop_skipped" -eq 0 ] ||
	printf '%s skipped (see the result lines)\n' "$ovpop_skipped"
printf '%s passed, %s failed\n' "$ovpop_passed" "$ovpop_failed"
[ "$ovpop_failed" -eq 0 ]
