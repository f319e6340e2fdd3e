#!/bin/sh
# The benchmark in the guest (scripts/bench.sh builds it and reads its
# output). For each size N, each placement (a: under the populated
# /platform-bus@c000000; b: under a new simple-bus) and each mix (mixed:
# every second node a primecell with a forced periphid; plat: platform
# nodes only), the overlay /lib/firmware/ovpop/bench/<p>-<mix>-<N>.dtbo is
# applied and removed RUNS times by each variant in turn:
#
#   ovpop    ovpop.ko loaded, through its configfs item's "path"
#   kernel   ovpop.ko unloaded, of_overlay_fdt_apply() from ovpop_bench.ko:
#            the kernel's own device creation (of_platform_notify)
#   floor    ovpop_bench.ko registers the same N devices without DT
#            (placement does not apply: measured once per mix)
#
# One line per run on stdout:
#   BENCH <variant> <p> <mix> <N> <run> apply=<ns> remove=<ns> populate=<ns>
#         depopulate=<ns> register=<ns> precheck=<ns> kapply=<ns>
#         kremove=<ns> knotify=<ns> slab=<KiB> live=<bytes> devices=<n>
#         left=<n> track=<bytes>
# apply: wall time of the write that applies (devices are created
# synchronously, from the notifications); remove: of the rmdir or write
# that removes (an rmdir is a busybox applet that forks: compare kremove);
# kremove: of_overlay_remove() timed in the kernel, for ovpop (ovpop/stats
# "unapply") and the kernel's path (ovpop_bench "times"), the unregister
# loop for the floor; kapply: of_overlay_fdt_apply() timed in the kernel
# (ovpop/stats "apply", ovpop_bench "times"), knotify: of which the reconfig
# notifier chain, where the devices are created (ovpop_bench's notifier
# pair around it, for both); populate/depopulate: ovpop's handling of added and removed
# nodes (ovpop/stats "add", "remove"), or the floor's loops; register: the
# part of populate spent in device_add()/amba_device_add(); precheck:
# ovpop's checks before the apply; slab: Slab growth over the apply
# (empty slabs shrunk before); live: growth of the bytes in slab objects
# in use (/proc/slabinfo: active objects times object size); devices:
# devices named *bench* after the apply; left: after the removal (must be
# 0); track: ovpop's tracking memory after the apply (ovpop/stats).
# Then the add-on board (overlays/addon-board.dtso, 4 devices):
#   ADDON <run> applied=<ns> bound=<ns>
# time until the write returned and until its three leaf devices had their
# drivers bound. Errors: "BENCH-ERROR <text>"; the exit status is 1 then.
#
# Kernel command line: ovpop_bench_n=10,100 (sizes; default
# 10,100,1000,4000), ovpop_bench_runs=5.
#
# With ovpop_bench_profile=1 (scripts/bench.sh -p, on the "trace" kernel)
# it profiles applies instead (removal is not profiled), for each size and
# mix, placement a, ovpop and the kernel's path in turn, under ftrace's
# function profiler, time asleep not counted:
#   phases  RUNS applies each with only the steps of an apply traced
#           ($phases: cheap, so the times stay close to the untraced ones),
#           time with callees; and as many registrations of the floor
#   self    one apply each with every function traced, self time
#   incl    the same, time with callees
# One line per function and CPU (names cut to 30 characters by ftrace):
#   PROF <variant> <phases|self|incl> <mix> <N> <hits> <us> <function> <run>
here=$(dirname "$0")
# shellcheck source=ov.sh
. "$here/ov.sh"

B=/sys/kernel/debug/ovpop_bench
S=/sys/kernel/debug/ovpop/stats
sizes="10 100 1000 4000"
runs=5
prof=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	ovpop_bench_n=*) sizes=$(echo "${arg#ovpop_bench_n=}" | tr , ' ') ;;
	ovpop_bench_runs=*) runs=${arg#ovpop_bench_runs=} ;;
	ovpop_bench_profile=1) prof=1 ;;
	esac
done
rc=0
warm=
for n in $sizes; do
	if [ -z "$warm" ] || [ "$n" -lt "$warm" ]; then
		warm=$n
	fi
done

err() {
	echo "BENCH-ERROR $*"
	rc=1
}

# Slab in KiB and the bytes in slab objects in use, as KIB:BYTES, after
# the frees RCU deferred (ovpop_bench's settle) and giving back the caches'
# empty slabs (ov_mem); taken before every timed apply. Slab counts pages,
# so it also moves with the room earlier runs left free in partly used
# slabs; in use counts what is allocated (SLUB counts a CPU's current slab
# as full: within a slab per cache).
slab() {
	echo 1 >"$B/settle"
	# shellcheck disable=SC2046 # two numbers
	set -- $(ov_mem)
	_b=$(awk 'NR > 2 { b += $2 * $4 } END { printf "%d", b }' /proc/slabinfo 2>/dev/null)
	echo "$2:${_b:-0}"
}

# stat KEY: a value of ovpop/stats (0 without ovpop)
stat() {
	awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' "$S" 2>/dev/null || echo 0
}

count() {
	set -- /sys/bus/platform/devices/*bench* /sys/bus/amba/devices/*bench*
	_c=0
	for _d in "$@"; do
		[ -e "$_d" ] && _c=$((_c + 1))
	done
	echo "$_c"
}

# Loading ovpop puts its code at a new address, which QEMU (TCG) has to
# translate again, while the kernel's own path stays translated: apply and
# remove a small overlay once, unmeasured, as a board that has had the
# module loaded for a while would have.
ovpop_load() {
	[ -d "$OV_CFS" ] && return 0
	insmod "$OVPOP_DIR/ovpop.ko" || { err "insmod ovpop"; return; }
	grep -q '^apply_ns ' "$S" ||
		err "ovpop/stats has no times: not built with OVPOP_TIMING=y"
	if ! mkdir "$OV_CFS/warm-up" ||
		! echo "ovpop/bench/a-mixed-$warm.dtbo" >"$OV_CFS/warm-up/path" ||
		! rmdir "$OV_CFS/warm-up"; then
		err "ovpop warm-up"
	fi
}

ovpop_unload() {
	[ -d "$OV_CFS" ] || return 0
	rmmod ovpop || err "rmmod ovpop"
}

# report VARIANT P MIX N RUN: one line from the measurements in t0..t3,
# and the pairs p (populate), d (depopulate), g (register), q (precheck),
# s (slab, KIB:BYTES); ka, kn, kr, c (devices), l (left), k (track)
report() {
	echo "BENCH $1 $2 $3 $4 $5 apply=$((t1 - t0)) remove=$((t3 - t2))" \
		"populate=$((p1 - p0)) depopulate=$((d1 - d0)) register=$((g1 - g0))" \
		"precheck=$((q1 - q0)) kapply=$ka kremove=$kr" \
		"knotify=$kn" \
		"slab=$((${s1%:*} - ${s0%:*})) live=$((${s1#*:} - ${s0#*:}))" \
		"devices=$c left=$l track=$k"
}

# timed FILE VALUE: writes VALUE to FILE, the clock read into ta before
# and tb after; the write's status
timed() {
	_rc=0
	read -r ta <"$B/clock"
	echo "$2" >"$1" || _rc=1
	read -r tb <"$B/clock"
	return "$_rc"
}

# applied FILE VALUE: timed, and kn set to the time of the reconfig
# notifier chain during it (ovpop_bench's pair sums the chain since load)
applied() {
	read -r _a _r _kn0 <"$B/times"
	timed "$1" "$2" || return 1
	read -r _a _r kn <"$B/times"
	kn=$((kn - _kn0))
}

# cycle AFILE AVALUE RFILE RVALUE WHAT: applies and removes by a write
# each, timed (t0..t3), with Slab before and after the apply (s0, s1), the
# devices after it (c) and after the removal (l), the notifier chain's
# time during the apply (kn) and ovpop_bench's apply time after it (ka)
cycle() {
	s0=$(slab)
	applied "$1" "$2" || err "$5: apply"
	t0=$ta t1=$tb
	read -r ka _r _n <"$B/times"
	s1=$(slab) c=$(count)
	timed "$3" "$4" || err "$5: remove"
	t2=$ta t3=$tb
	l=$(count)
}

# zero VARS...: sets each to 0
zero() {
	for _v in "$@"; do
		eval "$_v=0"
	done
}

run_ovpop() { # P MIX N RUN
	ovpop_load
	item=$OV_CFS/bench
	mkdir "$item" || { err "mkdir $item"; return; }
	s0=$(slab) p0=$(stat add_ns) g0=$(stat register_ns)
	q0=$(stat precheck_ns) a0=$(stat apply_ns)
	applied "$item/path" "ovpop/bench/$1-$2-$3.dtbo" || err "ovpop apply $1-$2-$3"
	t0=$ta t1=$tb
	p1=$(stat add_ns) g1=$(stat register_ns) q1=$(stat precheck_ns)
	k=$(stat tracking_bytes) s1=$(slab) c=$(count)
	ka=$(($(stat apply_ns) - a0))
	d0=$(stat remove_ns) u0=$(stat unapply_ns)
	read -r t2 <"$B/clock"
	rmdir "$item" || err "ovpop remove $1-$2-$3"
	read -r t3 <"$B/clock"
	d1=$(stat remove_ns) l=$(count)
	kr=$(($(stat unapply_ns) - u0))
	report ovpop "$@"
}

run_kernel() { # P MIX N RUN
	ovpop_unload
	zero p0 p1 d0 d1 g0 g1 q0 q1 k
	cycle "$B/apply" "ovpop/bench/$1-$2-$3.dtbo" "$B/remove" 1 "kernel $1-$2-$3"
	read -r _a kr _n <"$B/times"
	report kernel "$@"
}

run_floor() { # MIX N RUN
	kind=platform
	[ "$1" = mixed ] && kind=mixed
	zero p0 d0 g0 q0 q1 k
	cycle "$B/floor" "$2 $kind" "$B/floor" 0 "floor $2 $kind"
	zero ka kn
	# the loops' own times, measured in the kernel
	read -r _n p1 d1 g1 <"$B/floor"
	kr=$d1
	report floor - "$@"
}

# The add-on board: until applied, and until its leaves are bound. Their
# devices' names are found in the warm-up run (0).
addon_nodes="amba:/addon-bus@9030000/gpio@0 platform:/addon-bus@9030000/leds
platform:/addon-bus@9030000/regulator-addon-3v3"
addon_devs=
addon_find() {
	addon_devs=
	for x in $addon_nodes; do
		_d=$(dev_of_node "${x%%:*}" "${x#*:}") || return 1
		addon_devs="$addon_devs ${x%%:*}/$_d"
	done
}
addon_bound() {
	[ -n "$addon_devs" ] || addon_find || return 1
	for d in $addon_devs; do
		[ -e "/sys/bus/${d%%/*}/devices/${d#*/}/driver" ] || return 1
	done
}

run_addon() { # RUN
	ovpop_load
	item=$OV_CFS/addon
	mkdir "$item" || { err "mkdir $item"; return; }
	timed "$item/path" ovpop/addon-board.dtbo || err "addon apply"
	t0=$ta t1=$tb
	i=0
	until addon_bound; do
		i=$((i + 1))
		if [ "$i" -gt 20000 ]; then
			for d in $addon_devs; do
				[ -e "/sys/bus/${d%%/*}/devices/${d#*/}/driver" ] || err "addon: $d not bound"
			done
			[ -n "$addon_devs" ] || err "addon: devices not found"
			break
		fi
		usleep 500
	done
	read -r t2 <"$B/clock"
	rmdir "$item" || err "addon remove"
	echo "ADDON $1 applied=$((t1 - t0)) bound=$((t2 - t0))"
}

T=/sys/kernel/tracing
# The steps of an apply (the OF core's static build_changeset(),
# init_overlay_changeset() and changeset_dup_entry_check() are inlined in
# of_overlay_fdt_apply()); ovpop's are set again after each load
phases="vfs_write kernel_read_file firmware_request_nowarn request_firmware
of_overlay_fdt_apply of_fdt_unflatten_tree of_resolve_phandles
__of_changeset_apply_entries __of_attach_node_sysfs
__of_changeset_apply_notify overlay_notify of_platform_notify device_add
ovpop_blob_check ovpop_precheck ovpop_reconfig_notify ovpop_stack_record_end
ovpop_stack_update ovpop_stack_note ovpop_node_added ovpop_place_get
ovpop_device_create of_device_alloc of_platform_device_create_pdata
amba_device_add of_reconfig_get_state_change _printk release_firmware
bus_probe_device platform_match of_fwnode_add_links"

# filter WHAT: the profiler's functions: the phases, or all ("")
filter() {
	: >"$T/set_ftrace_filter"
	[ -n "$1" ] || return 0
	for fn in $phases; do	# those that exist (ovpop's only when loaded)
		echo "$fn" >>"$T/set_ftrace_filter"
	done 2>/dev/null
}

# profiled VARIANT HOW MIX N RUN: one apply under the function profiler,
# then its removal (not profiled). The floor: its devices registered.
profiled() {
	f=ovpop/bench/a-$3-$4.dtbo
	if [ "$1" = ovpop ]; then
		ovpop_load
		mkdir "$OV_CFS/bench" || { err "mkdir"; return; }
		a=$OV_CFS/bench/path
	elif [ "$1" = kernel ]; then
		ovpop_unload
		a=$B/apply
	else
		a=$B/floor f="$4 platform"
		[ "$3" = mixed ] && f="$4 mixed"
	fi
	graph=1
	[ "$2" = self ] && graph=0
	echo "$graph" >"$T/options/graph-time"
	[ "$2" = phases ] && filter phases
	echo 1 >"$B/settle"
	echo 1 >"$T/function_profile_enabled"
	echo "$f" >"$a" || err "profile: $1 apply $f"
	echo 0 >"$T/function_profile_enabled"
	[ "$(count)" -eq "$4" ] || err "profile: $1 $f: $(count) devices, not $4"
	# "  name  hits  time us  avg us  s^2 us", after two header lines
	for st in "$T"/trace_stat/function*; do
		awk -v v="$1 $2 $3 $4" -v r="$5" 'NR > 2 && $3 + 0 > 0 {
			print "PROF " v " " $2 " " $3 " " $1 " " r }' "$st"
	done
	if [ "$1" = ovpop ]; then
		rmdir "$OV_CFS/bench" || err "profile: rmdir"
	elif [ "$1" = kernel ]; then
		echo 1 >"$B/remove" || err "profile: kernel remove"
	else
		echo 0 >"$B/floor" || err "profile: floor remove"
	fi
	[ "$(count)" -eq 0 ] || err "profile: $1 $f: devices left"
}

profile() {
	grep -q " $T " /proc/mounts || mount -t tracefs tracefs "$T" ||
		{ err "no tracefs"; return; }
	[ -e "$T/function_profile_enabled" ] ||
		{ err "no function profiler (not the trace kernel?)"; return; }
	# function_graph's options; the profiler runs without that tracer
	echo 0 >"$T/options/sleep-time" || { err "no sleep-time option"; return; }
	echo "# profile: sizes $sizes, $runs run(s) of the phases, $(uname -r)"
	for n in $sizes; do
		for mix in plat mixed; do
			r=1
			while [ "$r" -le "$runs" ]; do
				profiled ovpop phases "$mix" "$n" "$r"
				profiled kernel phases "$mix" "$n" "$r"
				profiled floor phases "$mix" "$n" "$r"
				r=$((r + 1))
			done
			filter ""
			for how in self incl; do
				profiled ovpop "$how" "$mix" "$n" 1
				profiled kernel "$how" "$mix" "$n" 1
			done
		done
	done
}

insmod "$OVPOP_DIR/modules/ovpop_bench.ko" || { err "insmod ovpop_bench"; exit 1; }
if [ -n "$prof" ]; then
	profile
	ovpop_unload
	rmmod ovpop_bench || err "rmmod ovpop_bench"
	exit "$rc"
fi
echo "# bench: sizes $sizes, $runs run(s) each, $(uname -r)"
for n in $sizes; do
	r=1
	while [ "$r" -le "$runs" ]; do
		for mix in mixed plat; do
			for p in a b; do
				run_ovpop "$p" "$mix" "$n" "$r"
				run_kernel "$p" "$mix" "$n" "$r"
			done
			run_floor "$mix" "$n" "$r"
		done
		r=$((r + 1))
	done
done
# Warm up once (firmware, drivers' first probe), then measure
run_addon 0
r=1
while [ "$r" -le "$runs" ]; do
	run_addon "$r"
	r=$((r + 1))
done
ovpop_unload
rmmod ovpop_bench || err "rmmod ovpop_bench"
exit "$rc"
