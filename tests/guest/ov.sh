# shellcheck shell=sh
# Helpers for the in-guest tests and the demo: overlays through configfs,
# devices by device-tree node, state snapshots. Sourced after ktap.sh (for
# expect_kmsg).
#
#   ov_apply_dtbo NAME [FILE]  apply FILE (default /ovpop/overlays/NAME.dtbo)
#                              as configfs item NAME; 0 iff status "applied"
#   ov_apply_path NAME FILE    the same through "path" (FILE relative to
#                              /lib/firmware); 0 iff the write succeeded and
#                              status is "applied"
#   ov_status NAME             the item's status, "missing" without the item
#   ov_remove NAME...          rmdir the items that exist; 0 iff all went
#   ov_remove_all              rmdir every item, newest first
#   ov_loaded MODULE           the module is in /proc/modules
#   dev_of_node BUS PATH       name of the device on BUS whose of_node is the
#                              node PATH (e.g. /rtc@9010000); 1 if none
#   dev_of_node_any PATH       "BUS/NAME" of every device on any bus for PATH
#   dev_path BUS NAME          the device's real sysfs directory
#   driver_of BUS NAME         name of the driver bound to the device, or ""
#   dt_has PATH                the node PATH is in the live tree
#   wait_until SECONDS CMD...  run CMD every 0.1 s until it succeeds or
#                              SECONDS of wall-clock time have passed
#   ov_snapshot                state to compare before/after, on stdout
#   ov_snapshot_diff FILE [LINE]  0 iff the state (without the line LINE)
#                              equals FILE, else prints the differences on
#                              one line
#   ov_devices_all             every device of every bus with its driver,
#                              one line each (the board lanes: the board's
#                              own devices before = after)
#   ov_mem                     "MemAvailable Slab" in KiB
#   ov_slabinfo FILE           each cache's "NAME KiB OBJECTS" into FILE
#                              (/proc/slabinfo; empty without it)
#   ov_slab_growth BEFORE AFTER  the 8 caches that grew most between two
#                              ov_slabinfo files, one line each
#   ov_check_slab NAME BEFORE AFTER
#                              a case: Slab (of two ov_mem results) grew by
#                              at most 1 MiB; skipped in the debug lane,
#                              where KASAN's quarantine holds freed objects
#                              (kmemleak.sh checks for leaks there)
#   ov_kmemleak FILE           two kmemleak scans (an object is reported
#                              once unreferenced for 5 s), the report in
#                              FILE; prints "SUSPECTS KERNEL'S", KERNEL'S
#                              those the kernel leaks when a changeset's
#                              build fails (allocated by __of_node_dup() in
#                              add_changeset_node(), inlined into
#                              build_changeset_next_level() since 6.8);
#                              1 if a scan was refused (kmemleak disabled
#                              itself: the log says why)
#   ov_console_quiet / ov_console_restore
#                              keep the console to emergencies while a test
#                              makes the kernel log thousands of errors (the
#                              log keeps them), then back to the boot's level

OVPOP_DIR=${OVPOP_DIR:-/ovpop}
OV_CFS=/sys/kernel/config/device-tree/overlays
OV_DT=/sys/firmware/devicetree/base
OV_TMP=${TMPDIR:-/tmp}

# Applying an overlay with labels adds them to the base tree's /__symbols__,
# which the kernel reports with "WARNING: memory leak will occur if overlay
# removed" (drivers/of/overlay.c). Expected, so announce it to the host.
ov__expect_symbols() {
	if grep -q __symbols__ "$1" 2>/dev/null; then
		expect_kmsg 'OF: overlay: WARNING: memory leak will occur if overlay removed, property: /__symbols__/'
	fi
}

ov_status() {
	if [ -d "$OV_CFS/$1" ]; then
		cat "$OV_CFS/$1/status" 2>/dev/null || echo unreadable
	else
		echo missing
	fi
}

ov_apply_dtbo() {
	ov__file=${2:-$OVPOP_DIR/overlays/$1.dtbo}
	if [ ! -r "$ov__file" ]; then
		echo "ov_apply_dtbo: $ov__file: no such file" >&2
		return 1
	fi
	mkdir "$OV_CFS/$1" || return 1
	ov__expect_symbols "$ov__file"
	# The blob is applied when the writer closes; errors show in status.
	cat "$ov__file" >"$OV_CFS/$1/dtbo" || return 1
	[ "$(ov_status "$1")" = applied ]
}

ov_apply_path() {
	mkdir "$OV_CFS/$1" || return 1
	ov__expect_symbols "/lib/firmware/$2"
	echo "$2" >"$OV_CFS/$1/path" || return 1
	[ "$(ov_status "$1")" = applied ]
}

ov_remove() {
	ov__rc=0
	for ov__n in "$@"; do
		if [ -d "$OV_CFS/$ov__n" ]; then
			rmdir "$OV_CFS/$ov__n" || ov__rc=1
		fi
	done
	return $ov__rc
}

# Newest first: only the topmost of overlapping overlays can be removed.
ov_remove_all() {
	# shellcheck disable=SC2045 # names are ours, ls -t orders by age
	for ov__n in $(ls -t "$OV_CFS" 2>/dev/null); do
		rmdir "$OV_CFS/$ov__n" 2>/dev/null
	done
	[ -z "$(ls "$OV_CFS" 2>/dev/null)" ]
}

dt_has() {
	[ -d "$OV_DT$1" ]
}

# The of_node link is matched textually after .../devicetree/base, so a
# device whose node is gone (a leak) is still found.
dev_of_node() {
	for ov__d in /sys/bus/"$1"/devices/*; do
		[ -L "$ov__d/of_node" ] || continue
		ov__t=$(readlink "$ov__d/of_node")
		if [ "${ov__t#*/firmware/devicetree/base}" = "$2" ]; then
			echo "${ov__d##*/}"
			return 0
		fi
	done
	return 1
}

dev_of_node_any() {
	ov__found=1
	for ov__b in /sys/bus/*; do
		ov__b=${ov__b##*/}
		for ov__d in /sys/bus/"$ov__b"/devices/*; do
			[ -L "$ov__d/of_node" ] || continue
			ov__t=$(readlink "$ov__d/of_node")
			if [ "${ov__t#*/firmware/devicetree/base}" = "$1" ]; then
				echo "$ov__b/${ov__d##*/}"
				ov__found=0
			fi
		done
	done
	return $ov__found
}

dev_path() {
	readlink -f "/sys/bus/$1/devices/$2"
}

driver_of() {
	if [ -n "$2" ] && [ -L "/sys/bus/$1/devices/$2/driver" ]; then
		ov__t=$(readlink "/sys/bus/$1/devices/$2/driver")
		echo "${ov__t##*/}"
	fi
}

# The configfs devices report of an item (module/report.c), "" if none.
ov_devices() {
	cat "$OV_CFS/$1/devices" 2>/dev/null
}

# ov_devices_sysfs ITEM: ITEM's report is not empty and every line is true
# to sysfs (the device exists on its bus with that node, and is bound to
# that driver, or to none if deferred/unbound). Prints the first line that
# is not.
ov_devices_sysfs() {
	if [ -z "$(ov_devices "$1")" ]; then
		echo "(empty report)"
		return 1
	fi
	ov_devices "$1" | while read -r ov__bus ov__dev ov__node ov__drv ov__more; do
		if [ -n "$ov__more" ] || [ -z "$ov__drv" ] ||
			[ "$(dev_of_node "$ov__bus" "$ov__node")" != "$ov__dev" ]; then
			echo "$ov__bus $ov__dev $ov__node $ov__drv $ov__more"
			return 1
		fi
		case $ov__drv in
		deferred | unbound) ov__want= ;;
		*) ov__want=$ov__drv ;;
		esac
		if [ "$(driver_of "$ov__bus" "$ov__dev")" != "$ov__want" ]; then
			echo "$ov__bus $ov__dev $ov__node $ov__drv (sysfs: '$(driver_of "$ov__bus" "$ov__dev")')"
			return 1
		fi
	done
}

# The ovpop_report line of a device bound to ovpop_testdrv, or "".
ov_report() {
	cat "/sys/bus/$1/devices/$2/ovpop_report" 2>/dev/null
}

# ov__now: sets ov__up to the hundredths of a second since boot.
ov__now() {
	read -r ov__up _ </proc/uptime
	ov__up=${ov__up%.*}${ov__up#*.}
	ov__up=${ov__up#"${ov__up%%[!0]*}"}
	ov__up=${ov__up:-0}
}

# The deadline is wall-clock time: under TCG one check of sysfs can take
# longer than the 0.1 s between tries. In the control boot (OV_MODE=control)
# a script that has already failed a case does not wait for later ones: it
# has shown what it must, the rest only lists what the kernel alone did.
wait_until() {
	ov__end=$1
	if [ "${OV_MODE:-}" = control ] && [ "${ktap__failed:-0}" -gt 0 ]; then
		ov__end=0
	fi
	ov__now
	ov__end=$((ov__up + ov__end * 100))
	shift
	while ! "$@"; do
		ov__now
		[ "$ov__up" -lt "$ov__end" ] || return 1
		sleep 0.1
	done
	return 0
}

# ov__class CLASS: "class CLASS NAME DEVICE-PATH" per class device whose
# link resolves, from one listing of the links (the rig's sysfs names have
# no spaces)
ov__class() {
	{
		# shellcheck disable=SC2012 # the links' targets, from one process
		ls -l /sys/class/"$1"/ 2>/dev/null
		echo --
		for ov__c in /sys/class/"$1"/*; do
			[ -e "$ov__c" ] && echo "${ov__c##*/}"
		done
	} | awk -v c="$1" '
	$0 == "--" { names = 1; next }
	!names {
		if ($(NF - 1) == "->") {
			t = $NF
			sub(/^(\.\.\/)+devices\//, "", t)
			dev[$(NF - 2)] = t
		}
		next
	}
	$1 in dev { print "class " c " " $1 " " dev[$1] }'
}

# ov__devs BUS: "dev BUS NAME driver=DRIVER" (DRIVER empty if unbound) or
# "dev BUS NAME dangling" per device, from three processes per bus rather
# than two per device (a fork costs the debug lane's kernel tens of ms)
ov__devs() {
	{
		ls -ld /sys/bus/"$1"/devices/*/driver 2>/dev/null
		echo --
		for ov__d in /sys/bus/"$1"/devices/*; do
			if [ -e "$ov__d" ]; then
				echo "${ov__d##*/}"
			elif [ -L "$ov__d" ]; then
				case ${ov__d##*/} in
				alarmtimer.*) ;;
				*) echo "${ov__d##*/} dangling" ;;
				esac
			fi
		done
	} | awk -v bus="$1" '
	$0 == "--" { devs = 1; next }
	!devs {
		if ($(NF - 1) == "->") {
			n = split($(NF - 2), p, "/")
			m = split($NF, q, "/")
			drv[p[n - 1]] = q[m]
		}
		next
	}
	$2 == "dangling" { print "dev " bus " " $1 " dangling"; next }
	{ print "dev " bus " " $1 " driver=" drv[$1] }'
}

ov_devices_all() {
	for ov__b in /sys/bus/*; do
		ov__devs "${ov__b##*/}"
	done
}

# Everything a scenario may create or leave behind: devices on the
# platform and AMBA buses with their drivers, class devices the overlays
# create, configfs items and the live device tree (nodes and properties).
#
# A device whose sysfs directory went with its parent's shows as a dangling
# link. One such device is expected and left out: the first RTC with wakeup
# that registers is held forever by kernel/time/alarmtimer.c, and the
# "alarmtimer.N.auto" platform device it creates below that RTC stays
# registered after the RTC is removed (mainline behaviour, see
# ov_alarmtimer_pinned).
ov_snapshot() {
	ov__devs platform
	ov__devs amba
	for ov__c in leds rtc regulator gpio; do
		ov__class "$ov__c"
	done
	for ov__i in "$OV_CFS"/*; do
		[ -e "$ov__i" ] && echo "configfs ${ov__i##*/}"
	done
	find /proc/device-tree/ | sort
	# the values too: a property changed in place shows here
	echo "dt-values $(find /proc/device-tree/ -type f | sort | xargs cat | md5sum)"
}

ov_loaded() {
	grep -q "^$1 " /proc/modules
}

ov_kmemleak() {
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak || return 1
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak || return 1
	cat /sys/kernel/debug/kmemleak >"$1" || return 1
	# backtrace lines: "    [<ADDR>] SYMBOL+OFF/LEN" (6.1), "    SYMBOL+...";
	# SYMBOL may carry the compiler's suffixes (.isra.0, .part.0)
	awk '
	function done() { if (in_obj) { n++; if (dup && build) k++ } }
	/^unreferenced object/ { done(); in_obj = 1; dup = build = 0 }
	{ f = $0; sub(/^ +(\[<[^>]*>\] )?/, "", f) }
	f ~ /^__of_node_dup(\.[a-z]+\.[0-9]+)*\+/ { dup = 1 }
	f ~ /^(build_changeset_next_level|add_changeset_node)(\.[a-z]+\.[0-9]+)*\+/ { build = dup }
	END { done(); print n + 0, k + 0 }' "$1"
}

ov_console_quiet() {
	dmesg -n 1
}

ov_console_restore() {
	dmesg -n "$(sed -n 's/.*loglevel=\([0-9]\).*/\1/p' /proc/cmdline)"
}

# ov_mem: "MemAvailable Slab" in KiB, from /proc/meminfo, after the slab
# caches were shrunk (with KASAN, that also empties its quarantine of freed
# objects, which would otherwise count as slab).
# MemAvailable counts the free pages that the page allocator keeps in its
# per-CPU lists as used, and those lists change by a MiB or more from one
# moment to the next: they are added back (/proc/zoneinfo's "count:" of
# each pageset, in pages).
ov_mem() {
	for ov__s in /sys/kernel/slab/*/shrink; do
		[ -w "$ov__s" ] && echo 1 >"$ov__s" 2>/dev/null
	done
	ov__pcp=$(awk '$1 == "count:" { n += $2 } END { print n + 0 }' /proc/zoneinfo)
	ov__kib=$(awk '$1 == "KernelPageSize:" { print $2; exit }' /proc/self/smaps)
	awk -v pcp="$((ov__pcp * ${ov__kib:-4}))" \
		'$1 == "MemAvailable:" { a = $2 } $1 == "Slab:" { s = $2 }
		END { print a + pcp, s }' /proc/meminfo
}

ov_slabinfo() {
	awk 'NR > 2 && $13 == "slabdata" { print $1, $15 * $6 * 4, $2 }' \
		/proc/slabinfo >"$1" 2>/dev/null || : >"$1"
}

ov_slab_growth() {
	awk 'NR == FNR { kib[$1] = $2; n[$1] = $3; next }
	{ d = $2 - kib[$1]; if (d > 0) printf "%d %s +%d KiB, +%d objects\n", d, $1, d, $3 - n[$1] }' \
		"$1" "$2" | sort -rn | head -n 8 | sed 's/^[0-9]* //'
}

ov_check_slab() {
	if [ "${OV_LANE:-}" = debug ]; then
		ktap_skip "$1" "KASAN's quarantine holds freed objects"
		return 0
	fi
	# shellcheck disable=SC2086 # two numbers each
	set -- "$1" $2 $3
	ktap_check "$1" [ $(($5 - $3)) -le 1024 ]
}

# The dangling alarmtimer device that the first removed RTC leaves behind,
# or "" (see ov_snapshot).
ov_alarmtimer_pinned() {
	for ov__d in /sys/bus/platform/devices/alarmtimer.*; do
		if [ -L "$ov__d" ] && [ ! -e "$ov__d" ]; then
			echo "${ov__d##*/}"
		fi
	done
}

ov_snapshot_diff() {
	ov__now="$OV_TMP/ovpop-snap.$$"
	if [ -n "${2:-}" ]; then
		ov_snapshot | grep -vxF "$2" >"$ov__now"
	else
		ov_snapshot >"$ov__now"
	fi
	if cmp -s "$1" "$ov__now"; then
		rm -f "$ov__now"
		return 0
	fi
	diff "$1" "$ov__now" | grep '^[-+][^-+]' | head -n 8 | tr '\n' ' '
	rm -f "$ov__now"
	return 1
}

# ---- Checks for the test scripts (need ktap.sh) ----
#
#   check_bound CASE BUS PATH DRIVER  the node has a device on BUS bound to
#                                     DRIVER (waits up to 3 s); sets $OV_DEV
#   check_device CASE BUS PATH        the node has a device on BUS; sets
#                                     OV_DIR to its sysfs directory
#   check_gone CASE PATH              no device on any bus has the node
#   check_dt CASE PATH yes|no         the node is (not) in the live tree
#   check_report CASE BUS DEV ERE     the device's ovpop_report matches ERE
#   check_under CASE CHILD PARENT     sysfs dir CHILD is below dir PARENT
#   check_devices_sysfs CASE ITEM     ITEM's devices report is true to sysfs
#   check_snapshot CASE FILE          the state equals the snapshot FILE
#   check_lines_kept CASE OLD NEW     every line of file OLD is in file NEW
#   check_devices_all CASE FILE [ERE] ov_devices_all equals FILE (without
#                                     the lines ERE matches in either)
#   check_rounds CASE N CMD...        CMD succeeds N times in a row (CASE)
#                                     and Slab stays flat (CASE_slab_flat)

ov__bound() {
	ov__bd=$(dev_of_node "$1" "$2") &&
		[ "$(driver_of "$1" "$ov__bd")" = "$3" ]
}

check_bound() {
	OV_DEV=
	if wait_until 3 ov__bound "$2" "$3" "$4"; then
		OV_DEV=$(dev_of_node "$2" "$3")
		ktap_ok "$1"
		return 0
	fi
	if OV_DEV=$(dev_of_node "$2" "$3"); then
		ktap_fail "$1" "$2 device $OV_DEV of $3 bound to '$(driver_of "$2" "$OV_DEV")', not $4"
	else
		ktap_fail "$1" "no $2 device for $3; devices: $(dev_of_node_any "$3")"
	fi
	return 1
}

ov__gone() {
	! dev_of_node_any "$1" >/dev/null
}

check_gone() {
	if wait_until 3 ov__gone "$2"; then
		ktap_ok "$1"
		return 0
	fi
	ktap_fail "$1" "still has device(s): $(dev_of_node_any "$2")"
	return 1
}

check_dt() {
	if dt_has "$2"; then
		ov__has=yes
	else
		ov__has=no
	fi
	if [ "$ov__has" = "$3" ]; then
		ktap_ok "$1"
		return 0
	fi
	ktap_fail "$1" "node $2 in live tree: $ov__has"
	return 1
}

check_report() {
	if [ -z "$3" ]; then
		ktap_fail "$1" "no device"
		return 1
	fi
	ktap_match "$1" "$4" "$(ov_report "$2" "$3")"
}

# shellcheck disable=SC2034 # OV_DIR is read by the test scripts
check_device() {
	OV_DIR=
	if ov__d=$(dev_of_node "$2" "$3"); then
		OV_DIR=$(dev_path "$2" "$ov__d")
		ktap_ok "$1"
		return 0
	fi
	ktap_fail "$1" "no $2 device for $3"
	return 1
}

check_under() {
	if [ -z "$2" ] || [ -z "$3" ]; then
		ktap_fail "$1" "no sysfs directory: '$2' '$3'"
		return 1
	fi
	case $2 in
	"$3"/?*)
		ktap_ok "$1"
		return 0
		;;
	esac
	ktap_fail "$1" "'$2' is not below '$3'"
	return 1
}

check_devices_sysfs() {
	if ov__l=$(ov_devices_sysfs "$2"); then
		ktap_ok "$1"
		return 0
	fi
	ktap_fail "$1" "report line not true to sysfs: $ov__l"
	return 1
}

check_snapshot() {
	if ov__d=$(ov_snapshot_diff "$2"); then
		ktap_ok "$1"
		return 0
	fi
	ktap_fail "$1" "state differs: $ov__d"
	return 1
}

check_lines_kept() {
	if [ ! -s "$3" ]; then
		ktap_fail "$1" "$3 is empty"
		return 1
	fi
	ov__l=$(awk 'FILENAME == ARGV[1] { have[$0] = 1; next } !($0 in have)' "$3" "$2")
	if [ -z "$ov__l" ]; then
		ktap_ok "$1"
		return 0
	fi
	ktap_fail "$1" "gone: $(printf '%s\n' "$ov__l" | head -n 8 | tr '\n' ' ')"
	return 1
}

check_devices_all() {
	ov__now="$OV_TMP/ovpop-devs.$$"
	ov_devices_all | grep -Ev -- "${3:-^\$}" >"$ov__now"
	ov__d=$(grep -Ev -- "${3:-^\$}" "$2" | diff - "$ov__now" |
		grep '^[-+][^-+]' | head -n 8 | tr '\n' ' ')
	rm -f "$ov__now"
	if [ -z "$ov__d" ]; then
		ktap_ok "$1"
		return 0
	fi
	ktap_fail "$1" "devices differ: $ov__d"
	return 1
}

check_rounds() {
	ov__case=$1
	ov__n=$2
	shift 2
	ov__m0=$(ov_mem)
	ov__i=0
	ov__ok=yes
	while [ "$ov__i" -lt "$ov__n" ]; do
		if ! "$@"; then
			ov__ok="no (round $((ov__i + 1)))"
			break
		fi
		ov__i=$((ov__i + 1))
	done
	ov__m1=$(ov_mem)
	ktap_eq "$ov__case" yes "$ov__ok"
	ov_check_slab "${ov__case}_slab_flat" "$ov__m0" "$ov__m1"
	ktap_diag "memory (MemAvailable Slab, KiB): before $ov__m0, after $ov__m1"
}
