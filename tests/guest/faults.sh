#!/bin/sh
# Fault injection (the debug lane, whose kernel has FAILSLAB, FAIL_PAGE_ALLOC,
# the fault-injection stacktrace filter and the OF reconfig notifier error
# injection; run.sh runs it unless the kernel command line has
# ovpop_faults=0), for the add-on board and the nested-buses overlay
# (ovpop-tool sweep and notify, tests/tools/faults.c, which says what is
# checked after each operation):
# - allocation sweeps: the k-th slab allocation of the task that applies
#   (one write of the blob to dtbo, then the close that applies it) or
#   removes (rmdir) fails, for k = 1, 2, ... until the operation makes
#   fewer than k: the apply with drivers not probing (drivers_autoprobe 0:
#   the OF core's, the driver core's and ovpop's allocations), the apply
#   with drivers probing, counting only the allocations made in probes
#   (the filter requires really_probe() in the stack), and the removal;
# - notifier errors: each OF reconfig action (nested-buses; the board too
#   with ovpop_faults=full), then all of them, fail (debugfs
#   notifier-error-inject/OF-reconfig, -EIO) during an apply, then during a
#   removal.
# After each operation the item is applied with every device (a driver may
# have failed its probe), or unapplied or gone with none; the kernel
# reported nothing; every 25 operations the guard (overlays/fault-guard.dtso,
# applied before) can be removed: nothing stayed registered with the OF
# core. After each overlay's cases Slab grew by at most 1 MiB more than as
# many clean cycles make it grow (the add-on board's label: the kernel's
# /__symbols__ properties, which it leaks by design) and the changesets the
# kernel kept hold. kmemleak then scans: no suspect (kmemleak.sh scans again
# at the end of the run).
#
# Left out of those sweeps (the filter rejects stacks with the OF core's
# text from drivers/of/kobj.c to overlay.c's changeset build in them, which
# takes in dynamic.c, fdt.c, address.c, irq.c and resolver.c too): the OF
# core's own handling of its failures, 6.1 to 7.3 alike. The live tree's
# sysfs entries (kobj.c): if a property's entry name cannot be allocated,
# removing the property passes a NULL name to sysfs_remove_bin_file() (an
# oops in strlen()); if a node's entry cannot be made, its children get a
# parent without a sysfs directory (an oops in kernfs_find_and_get_ns()
# from safe_name()). The changeset's build: the kernel keeps a changeset
# whose build failed registered, with no way to remove it, and it blocks
# the removal of the overlays applied before it that it covers (the check
# for duplicate entries, inlined in of_overlay_fdt_apply(), is not left
# out: a name it cannot allocate counts as a duplicate, the build fails
# with -EINVAL and the kernel keeps that changeset). The build is swept on its
# own at the end (build_faults, without a guard): ovpop must refuse the
# item, change nothing and not ask the kernel to revert entries it never
# applied (which oopses, re-attaching nodes whose parents never were).
# There the kernel leaks: add_changeset_node() returns without putting the
# node it duplicated when of_changeset_attach_node() fails (6.1 to 7.3). So
# after it every kmemleak suspect must have been allocated by that
# __of_node_dup() (the node, its name) and they are cleared; any other fails.
# Left out of the probe sweeps: gpiolib's registration of a chip
# (gpiochip_add_data_with_key(), 6.12 and 7.3): when it fails after the
# chip was listed, its error path frees the chip without revoking it
# (gpiochip_remove() clears gdev->chip, the error path does not), and a
# consumer that got one of its GPIOs meanwhile (the board's gpio-leds)
# keeps calling into freed memory (KASAN: use-after-free in
# gpiochip_set(), then an oops writing the unmapped registers).
#
# Time: an operation and its checks take about 0.3 s in the debug guest
# (3 s for the board, whose removal waits for its regulator's delayed
# release), and an apply makes 340 to 470 allocations that count (half of
# them kmemleak's own records, whose failures it absorbs), so the apply
# sweeps without probes take every $stride-th k from a fixed k, the board's
# probes and the build every $stride2-th; the kernel command line's
# ovpop_faults=full (OVPOP_APPEND) takes every k.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

tool=$OVPOP_DIR/bin/ovpop-tool
fs=/sys/kernel/debug/failslab
fp=/sys/kernel/debug/fail_page_alloc
nei=/sys/kernel/debug/notifier-error-inject/OF-reconfig/actions
item=faults
guard=faults-guard
gblob=$OVPOP_DIR/overlays/fault-guard.dtbo
gpath=/sys/firmware/devicetree/base/ovpop,fault-guard
stride=4
first=3
stride2=2
# Slab a changeset the kernel keeps holds, at most (nested-buses: see
# build_faults)
kept_kib=128
# the changeset's build (6.12: build_changeset() and add_changeset_node()
# are inlined)
build="add_changeset_property build_changeset_next_level"
# drivers/of/kobj.c's functions (6.12), next to each other in the text
kobj="__of_attach_node_sysfs of_node_property_read safe_name of_node_is_attached __of_add_property_sysfs __of_sysfs_remove_bin_file __of_remove_property_sysfs __of_update_property_sysfs __of_detach_node_sysfs"
ulong_max=18446744073709551615
kl=/sys/kernel/debug/kmemleak
out=$OV_TMP/faults.out
# the kernel's reports, as the host's log scan sees them (scripts/test-pair.sh)
FI_REPORT='WARNING:|BUG:|Oops|Unable to handle|Kernel panic|refcount_t|memory leak|unreferenced object|UBSAN|KASAN|ODEBUG|possible circular locking|suspicious RCU|of_node_put|INFO: task|\[ cut here \]'
# the kernel leaks the properties overlays add to base nodes, and says so
FI_EXPECTED='OF: overlay: WARNING: memory leak will occur if overlay removed, property: /(__symbols__/|ovpop,fault-guard$)'
export FI_REPORT FI_EXPECTED

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	fi_knobs 0
	fi_autoprobe 1
	for a in "$nei"/*/error; do
		[ -w "$a" ] && echo 0 >"$a"
	done
	ov_console_restore
	ov_remove "$item" "$guard"
	rm -f "$out" "$out.leaks" "$out.slab0" "$out.slab2" "$out.growth"
}

# fi_range SYMBOL NEIGHBOUR...: "START END" of the text around SYMBOL
# (/proc/kallsyms, sorted by address) made of SYMBOL and the NEIGHBOURs
# next to it, END the address of the next symbol; fails unless all of
# them are in it
fi_range() {
	awk -v want="$*" '
	BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) set[w[i]] = 1 }
	$2 ~ /^[tT]$/ && NF == 3 { a[++m] = $1; s[m] = $3; if ($3 == w[1]) at = m }
	END {
		if (!at)
			exit 1
		for (lo = at; lo > 1 && (s[lo - 1] in set); lo--)
			;
		for (hi = at; hi < m && (s[hi + 1] in set); hi++)
			;
		for (i = lo; i <= hi; i++)
			got[s[i]] = 1
		for (i = 1; i <= n; i++)
			if (!(w[i] in got))
				exit 1
		print "0x" a[lo], "0x" a[hi + 1]
	}' /proc/kallsyms
}

# fi_addr SYMBOL: its address (text)
fi_addr() {
	awk -v s="$1" '$2 ~ /^[tT]$/ && $3 == s { print "0x" $1; exit }' /proc/kallsyms
}

# fi_filter require|reject START END: the stacktrace filter's range
fi_filter() {
	echo "$2" >"$fs/$1-start"
	echo "$3" >"$fs/$1-end"
}

# fi_knobs 1|0: every slab allocation counts for fail-nth (failslab ignores
# those that may sleep by default) unless the OF core from drivers/of/kobj.c
# to overlay.c's changeset build is in its stack (see the top),
# no page allocation does (min-order 20: its faults fail the same kmallocs
# again, or SLUB falls back to a smaller order), no message per fault; or
# the kernel's defaults back
fi_knobs() {
	[ -d "$fs" ] || return 0
	echo $((1 - $1)) >"$fs/ignore-gfp-wait"
	echo $((2 - 2 * $1)) >"$fs/verbose"
	echo $((1 + 19 * $1)) >"$fp/min-order"
	if [ "$1" = 1 ]; then
		# shellcheck disable=SC2046 # an address
		set -- $(fi_range "$kobj")
		fi_filter reject "$1" "$(fi_addr of_overlay_fdt_apply)"
		fi_filter require 0 "$ulong_max"
	else
		fi_filter reject 0 0
		fi_filter require 0 "$ulong_max"
	fi
}

# fi_autoprobe 1|0: new platform and AMBA devices are probed when added, or
# not (an apply then makes no allocation in a driver's probe)
fi_autoprobe() {
	echo "$1" >/sys/bus/platform/drivers_autoprobe
	echo "$1" >/sys/bus/amba/drivers_autoprobe
}

# fi_case CASE COMMAND ARGS...: ovpop-tool COMMAND on $ov, its lines as
# diagnostics, a case that passes iff it exits 0; counts its operations
fi_case() {
	fi__case=$1
	fi__cmd=$2
	shift 2
	"$tool" "$fi__cmd" "$@" >"$out" 2>&1
	fi__rc=$?
	ktap_diag_file "$out" 60 "$ov $fi__case: "
	fi__n=$(sed -n 's/^sweep [a-z]*: \([0-9]*\) operations in .*/\1/p' "$out")
	ops=$((ops + ${fi__n:-1}))
	fi__n=$(sed -n 's/^sweep .*, \([0-9]*\) kept by the kernel$/\1/p' "$out")
	kept=$((kept + ${fi__n:-0}))
	if [ "$fi__rc" -eq 0 ]; then
		ktap_ok "${ov}_$fi__case"
	else
		ktap_fail "${ov}_$fi__case" "$(grep -m 1 '^fault\|^notify\|^sweep\|ovpop-tool' "$out")"
	fi
	[ "$fi__rc" -le 1 ] || broken=1
}

# fi_sweep CASE OP FIRST STEP
fi_sweep() {
	fi_case "$1" sweep "$2" "$item" "$blob" "$guard" "$gblob" "$gpath" \
		"$3" "$4"
}

# fi_notify OP ACTION...: those reconfig actions fail in the operation
fi_notify() {
	fi__name=$(echo "$*" | sed 's/OF_RECONFIG_//g; s/ /+/g' | tr '[:upper:]' '[:lower:]')
	fi__op=$1
	shift
	fi_case "notify_$fi__name" notify "$fi__op" "$item" "$blob" "$guard" "$gblob" "$gpath" "$@"
}

# fi_slab [FILE]: Slab in KiB, after delayed releases (ov_mem); each
# cache's size into FILE (ov_slabinfo)
fi_slab() {
	sleep 5
	[ -z "${1:-}" ] || ov_slabinfo "$1"
	# shellcheck disable=SC2046 # two numbers
	set -- $(ov_mem)
	echo "$2"
}

ktap_begin faults
ktap_at_exit cleanup
if [ ! -w /proc/thread-self/fail-nth ] || [ ! -d "$fs" ] || [ ! -d "$nei" ]; then
	ktap_skip faults "kernel without FAILSLAB, FAULT_INJECTION_DEBUG_FS or OF_RECONFIG_NOTIFIER_ERROR_INJECT (only the debug lane has them)"
	ktap_end
fi
grep -q 'ovpop_faults=full' /proc/cmdline && stride=1 first=1 stride2=1
ktap_diag "apply sweeps without probes: every ${stride}th k from k = $first"
if ! fi_range "$kobj" >/dev/null || ! fi_range really_probe >/dev/null ||
	! fi_range "$build" >/dev/null ||
	! fi_range gpiochip_add_data_with_key >/dev/null ||
	[ -z "$(fi_addr of_overlay_fdt_apply)" ]; then
	ktap_fail faults "drivers/of/kobj.c's functions, really_probe(), gpiochip_add_data_with_key() or the changeset build's not found together in /proc/kallsyms"
	ktap_end
fi
expect_kmsg "$FI_EXPECTED"
# the thousands of these are not worth the log's space; ovpop-tool's
# "OVPOP-FI: ITEM OP k=K" before each operation is (after a crash, the last
# one tells which k it was). The ERE must not look like a report itself:
# the host scans this line.
printf 'OVPOP-QUIET-BEGIN: %s\n' \
	'(ovpop: faults|OF: (overlay|resolver|fdt|changeset): |Injecting error)' >/dev/kmsg
# nor the console's time (loglevel=4 in the debug lane)
ov_console_quiet
fi_knobs 1
broken=
ktap_check guard_apply ov_apply_dtbo "$guard" "$gblob"

for ov in nested-buses addon-board; do
	[ -z "$broken" ] || break
	blob=$OVPOP_DIR/overlays/$ov.dtbo
	ops=0
	kept=0
	# every k of the probes, every 2nd for the board's (see above)
	pstride=1
	[ "$ov" = nested-buses ] || pstride=$stride2
	s0=$(fi_slab "$out.slab0")
	for _ in 1 2 3; do
		ov_apply_dtbo "$item" "$blob"
		ov_remove "$item"
	done
	s1=$(fi_slab)
	fi_autoprobe 0
	fi_sweep apply_noprobe_faults apply "$first" "$stride"
	fi_autoprobe 1
	# shellcheck disable=SC2046 # two addresses
	fi_filter require $(fi_range really_probe)
	# shellcheck disable=SC2046 # two addresses
	fi_filter reject $(fi_range gpiochip_add_data_with_key)
	[ -n "$broken" ] || fi_sweep apply_probe_faults apply 1 "$pstride"
	fi_knobs 1
	[ -n "$broken" ] || fi_sweep rmdir_faults rmdir 1 1
	# each action alone for nested-buses, and for the board with every k
	# (its removals take seconds here: its regulator's delayed release)
	for a in "$nei"/*/; do
		[ "$ov" = nested-buses ] || [ "$stride" -eq 1 ] || break
		[ -n "$broken" ] || fi_notify apply "$(basename "$a")"
		[ -n "$broken" ] || fi_notify rmdir "$(basename "$a")"
	done
	all=$(cd "$nei" && echo *)
	# shellcheck disable=SC2086 # the actions' names
	[ -n "$broken" ] || fi_notify apply $all
	# shellcheck disable=SC2086
	[ -n "$broken" ] || fi_notify rmdir $all
	[ -z "$broken" ] || break
	s2=$(fi_slab "$out.slab2")
	# what clean cycles add (the kernel's /__symbols__ properties), for
	# each operation, and what the changesets the kernel kept hold (the
	# blob's copy, its tree and the entries: at most $kept_kib KiB each)
	leak=$(((s1 - s0) * ops / 3))
	[ "$leak" -ge 0 ] || leak=0
	leak=$((leak + kept * kept_kib))
	ktap_diag "$ov: Slab $s0 KiB, after 3 clean cycles $s1 KiB, after $ops operations $s2 KiB, $kept changesets kept by the kernel (allowed: +1024 +$leak)"
	if ! ktap_check "${ov}_slab_back_to_baseline" [ $((s2 - s0)) -le $((1024 + leak)) ]; then
		ov_slab_growth "$out.slab0" "$out.slab2" >"$out.growth"
		ktap_diag_file "$out.growth" 8 "$ov: grew most: "
	fi
done

if [ -z "$broken" ]; then
	ktap_check guard_remove rmdir "$OV_CFS/$guard"
	check_dt guard_removed /ovpop,fault-guard no
fi
# what the sweeps leaked (left for kmemleak.sh's report too)
refused="a kmemleak scan was refused: kmemleak disabled itself (the log says why)"
if [ -z "$broken" ] && [ ! -w "$kl" ]; then
	ktap_skip sweeps_leak_nothing "no $kl (kernel without DEBUG_KMEMLEAK)"
elif [ -z "$broken" ] && ! leaks=$(ov_kmemleak "$out.leaks"); then
	ktap_fail sweeps_leak_nothing "$refused"
elif [ -z "$broken" ]; then
	# shellcheck disable=SC2086 # two numbers
	set -- $leaks
	ktap_diag "after the sweeps: $1 kmemleak suspect(s)"
	[ "$1" -eq 0 ] || ktap_diag_file "$out.leaks" 40
	ktap_check sweeps_leak_nothing [ "$1" -eq 0 ]
fi
# Last, since the kernel keeps each changeset whose build fails: every
# allocation of the build fails in turn. The item is refused, nothing
# changed, and the kernel is not asked to remove entries it never applied
# (it would oops re-attaching nodes). No guard: a kept changeset with an
# entry on a live node would block it.
if [ -z "$broken" ]; then
	ov=nested-buses
	blob=$OVPOP_DIR/overlays/$ov.dtbo
	fi_knobs 1
	# shellcheck disable=SC2046 # two addresses
	fi_filter reject $(fi_range "$kobj")
	# shellcheck disable=SC2046 # two addresses
	fi_filter require $(fi_range "$build")
	kept=0
	s0=$(fi_slab)
	fi_case build_faults sweep apply "$item" "$blob" - - - 1 "$stride2"
	s1=$(fi_slab)
	ktap_diag "$ov: Slab +$((s1 - s0)) KiB for $kept changesets kept by the kernel (allowed above: $kept_kib KiB each)"
	ktap_check "${ov}_build_faults_kept" [ "$kept" -gt 0 ]
	ktap_check "${ov}_kept_within_allowance" [ $((s1 - s0)) -le $((kept * kept_kib)) ]
	fi_knobs 0
fi
# The kernel's leak (a node add_changeset_node() duplicated, then dropped
# when of_changeset_attach_node() failed: 6.1 overlay.c:442-444, 6.12
# :446-448, 7.3 :451-453) is the proof that kmemleak finds leaks here: at
# least one, and nothing else. A kernel that fixes it fails
# build_faults_leak_found: this proof then needs another leak. Cleared,
# and kmemleak.sh told (a node unreferenced later is reported there).
kleak='kmemleak: [0-9]+ new suspected memory leaks'
if [ -z "$broken" ] && [ -w "$kl" ]; then
	# the scan logs how many it found
	expect_kmsg "$kleak"
	if ! leaks=$(ov_kmemleak "$out.leaks"); then
		ktap_fail build_faults_leak_only_the_kernels "$refused"
	else
		# shellcheck disable=SC2086 # two numbers
		set -- $leaks
		ktap_diag "after the build sweep: $1 kmemleak suspect(s), $2 of them add_changeset_node()'s"
		if [ "$1" -eq "$2" ]; then
			echo clear >"$kl"
		else
			ktap_diag_file "$out.leaks" 40
		fi
		ktap_check build_faults_leak_only_the_kernels [ "$1" -eq "$2" ]
		ktap_check build_faults_leak_found [ "$2" -gt 0 ]
		: >"$OV_TMP/faults-build-sweep"
	fi
	expect_kmsg_end "$kleak"
fi
ov_console_restore
echo "OVPOP-QUIET-END" >/dev/kmsg
ktap_end
